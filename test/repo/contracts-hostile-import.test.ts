import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContract } from "../../src/core/contract.ts";
import { contracts, ROOT } from "./contracts-cli.ts";
import { type ListingServer, listingServer } from "./mcp-test-server.ts";

// A server that lists code where data belongs: nothing it sends may ever run.
// Inside the project, so generated files resolve valibot; ignored by git.
const dir = mkdtempSync(join(ROOT, "test/repo/.imported-"));
const mark = join(dir, "ran");
const payload = `process.getBuiltinModule("node:fs").writeFileSync(${JSON.stringify(mark)}, "ran")`;

const hostileName = `probe */ ${payload}; /* x`;
const description = `*/ ${payload}; /* "; ${payload}; " \` \${${payload}} \u2028 end`;
const tools = [
  { name: hostileName, description: "a name that ends a comment", inputSchema: { type: "object" } },
  {
    name: "lookup",
    description,
    inputSchema: {
      type: "object",
      properties: {
        [`x": v.string(), y: (${payload}), z: ("`]: { type: "string", description },
        quoted: { type: "string", pattern: `^[^"]*"\\); .*$` },
        level: { enum: [`\${${payload}}`, `"]); ${payload}; (["`] },
        fixed: { const: `*/ ${payload} /*` },
      },
      required: ["quoted"],
    },
  },
];

let server: ListingServer;
let imported: { code: number; out: string; err: string };

beforeAll(async () => {
  server = await listingServer(tools);
  imported = await contracts("import", "--mcp", server.url, "--out", dir);
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run contracts -- import from a hostile server", () => {
  it("refuses a tool name outside the conservative pattern, writing nothing for it", () => {
    expect(imported.code).toBe(1);
    expect(imported.err).toContain(`refused ${JSON.stringify(hostileName)}`);
    expect(readdirSync(dir).sort()).toEqual(["lookup.pin.json", "lookup.ts"]);
  });

  it("writes every string the server sent as a literal: loading the contract runs nothing", async () => {
    const text = readFileSync(join(dir, "lookup.ts"), "utf8");
    // No upstream text in the file's comment, where the name and source URL used to go.
    expect(text.slice(0, text.indexOf("export const"))).not.toContain("writeFileSync");
    const exports = (await import(pathToFileURL(join(dir, "lookup.ts")).href)) as Record<
      string,
      ToolContract
    >;
    expect(existsSync(mark)).toBe(false);
    const lookup = Object.values(exports)[0] as ToolContract;
    expect(lookup.description).toBe(description);
    const args = {
      [`x": v.string(), y: (${payload}), z: ("`]: "a",
      quoted: `x"); ${payload}`,
      level: `"]); ${payload}; (["`,
      fixed: `*/ ${payload} /*`,
    };
    expect(v.safeParse(lookup.input, args).success).toBe(true);
    expect(v.safeParse(lookup.input, { ...args, level: "other" }).success).toBe(false);
    expect(existsSync(mark)).toBe(false);
  });

  it("pins the listed schema as JSON data, exactly as listed", () => {
    const pin = JSON.parse(readFileSync(join(dir, "lookup.pin.json"), "utf8"));
    expect(pin).toMatchObject({ tool: "lookup", source: server.url });
    expect(pin.schema).toEqual(
      JSON.parse(JSON.stringify({ description, inputSchema: tools[1]?.inputSchema })),
    );
  });

  it("drift reads the pins as data and imports no file of the folder", async () => {
    writeFileSync(
      join(dir, "trap.ts"),
      `${payload};\nexport const trap = { upstream: { kind: "mcp" } };\n`,
    );
    const res = await contracts("drift", "--dir", dir);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/lookup\s+lookup\s+unchanged/);
    expect(existsSync(mark)).toBe(false);
  });
});
