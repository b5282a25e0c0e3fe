import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { noop } from "../../contracts/noop.ts";
import { getTicket } from "../../demo/contracts/get_ticket.ts";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import { checkContractFolder, declaredBindings } from "../../scripts/lib/contract-folder.ts";
import type { ToolContract } from "../../src/core/contract.ts";

const toml = readFileSync(resolve(import.meta.dirname, "../../wrangler.toml"), "utf8");
const bindings = declaredBindings(toml);

describe("policy check of the contracts folder", () => {
  it("finds nothing missing in the shipped folder", () => {
    const report = checkContractFolder({
      modules: [{ path: "contracts/get_ticket.ts", exports: { getTicket } }],
      listed: CONTRACTS,
      allowed: CONTRACTS.map((c) => c.name),
      bindings,
    });
    expect(report).toEqual({ errors: [], notes: [] });
  });

  it("names a contract file that contracts/index.ts does not list", () => {
    const report = checkContractFolder({
      modules: [{ path: "contracts/get_ticket.ts", exports: { getTicket } }],
      listed: [noop],
      allowed: ["noop"],
      bindings,
    });
    expect(report.errors).toEqual([
      expect.stringContaining('contracts/get_ticket.ts defines the tool "get_ticket"'),
    ]);
  });

  it("names a tool the policy does not allow, an undeclared binding and a secret to put", () => {
    const http: ToolContract = {
      ...getTicket,
      name: "lookup",
      upstream: {
        kind: "http",
        method: "GET",
        url: "https://tickets.example.com/{ticket_id}",
        auth: { header: "Authorization", secret: "TICKETS_TOKEN", scheme: "Bearer" },
      },
    };
    const { example: _, ...noExample } = getTicket;
    const elsewhere: ToolContract = {
      ...noExample,
      name: "elsewhere",
      upstream: { kind: "service", binding: "BILLING", method: "GET", path: "/x" },
    };
    const report = checkContractFolder({
      modules: [],
      listed: [http, elsewhere],
      allowed: ["elsewhere"],
      bindings,
    });
    expect(report.errors).toEqual([expect.stringContaining("service binding BILLING")]);
    expect(report.notes).toEqual([
      "lookup is not in policy allowed_tools: no run may call it",
      expect.stringContaining("wrangler secret put TICKETS_TOKEN"),
      expect.stringContaining("elsewhere has no example"),
    ]);
  });

  it("reads the bindings wrangler.toml declares", () => {
    expect(bindings.has("DEMO")).toBe(true);
    expect(bindings.has("RUN_LEDGER")).toBe(false);
  });
});
