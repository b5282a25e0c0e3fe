import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import { readPins, schemaHash } from "../../scripts/lib/mcp/pin.ts";

// `npm run contracts -- drift --dir demo/contracts` reads the demo's *.pin.json, the worker
// reads the contracts: both must be the same pins, each hash the hash of its schema.
const pins = readPins(resolve(import.meta.dirname, "../../demo/contracts"));

describe("the pins of the MCP contracts", () => {
  it("are one pin file per MCP contract, the very pin the contract carries", () => {
    const mcp = CONTRACTS.flatMap((c) => (c.upstream.kind === "mcp" ? [c] : []));
    expect(pins.map((p) => p.name).sort()).toEqual(mcp.map((c) => c.name).sort());
    for (const c of mcp) {
      const found = pins.find((p) => p.name === c.name);
      if (found === undefined) throw new Error(`no pin for ${c.name}`);
      const { name: _name, ...pin } = found;
      expect(c.upstream).toMatchObject({ tool: pin.tool, pinned: pin });
    }
  });

  it("hash the schema they hold", () => {
    for (const p of pins) expect(schemaHash(p.schema), p.name).toBe(p.sha256);
  });
});
