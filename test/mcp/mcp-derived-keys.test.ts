import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/core/canonical.ts";
import { callerWith, dev, json, newRun } from "../helpers.ts";
import { firstJson, mcpClient } from "./helpers.ts";

const KEY = "io.toolfence/idempotency-key";
const FENCE = "io.toolfence/fence";

/** The idempotency keys of a run's audit entries, in order. */
async function keysOf(run: string): Promise<(string | null)[]> {
  const audit = await json<{ entries: { idempotency_key: string | null }[] }>(
    await dev.get(`/v1/runs/${run}/audit`),
  );
  return audit.entries.map((e) => e.idempotency_key);
}

describe("keys the fence derives for MCP mutations", () => {
  it("derives one key from the validated call: a default sent or left out is the same intent", async () => {
    const run = newRun("derived");
    const ticket_id = `T-${crypto.randomUUID().slice(0, 8)}`;
    const client = await mcpClient(run);
    const first = await client.callTool({ name: "create_ticket", arguments: { ticket_id } });
    expect(first._meta?.[FENCE]).toMatchObject({ decision: "applied" });
    const again = await client.callTool({
      name: "create_ticket",
      arguments: { priority: "normal", ticket_id },
    });
    expect(again._meta?.[FENCE]).toMatchObject({ decision: "replayed" });
    await client.close();
    const keys = await keysOf(run);
    expect(keys[0]).toMatch(/^mcp:[0-9a-f]{64}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
  });

  it("lets no other caller take a derived key before the MCP call does", async () => {
    const run = newRun("derived");
    const args = { ticket_id: `T-${crypto.randomUUID().slice(0, 8)}`, priority: "normal" };
    const derived = `mcp:${await fingerprint("create_ticket", args)}`;
    const other = await callerWith({ tenant: "default" });
    const taken = await other.propose(run, {
      tool: "create_ticket",
      args: { ...args, title: "taken first" },
      idempotency_key: derived,
    });
    expect(taken.status).toBe(422);
    expect(await json(taken)).toMatchObject({
      reason: "contract_violation",
      issues: [{ path: "idempotency_key" }],
    });
    const inHeader = await other.propose(
      run,
      { tool: "create_ticket", args },
      { headers: { "Idempotency-Key": derived } },
    );
    expect(inHeader.status).toBe(422);
    const client = await mcpClient(run);
    const meta = await client.callTool({
      name: "create_ticket",
      arguments: args,
      _meta: { [KEY]: derived },
    });
    expect(firstJson(meta)).toMatchObject({ reason: "contract_violation" });
    const own = await client.callTool({ name: "create_ticket", arguments: args });
    expect(own._meta?.[FENCE]).toMatchObject({ decision: "applied" });
    await client.close();
    expect((await keysOf(run)).at(-1)).toBe(derived);
  });

  it("reserves the prefix in any case: MCP:, Mcp: and mCP: are refused too", async () => {
    const run = newRun("derived");
    const args = { ticket_id: `T-${crypto.randomUUID().slice(0, 8)}` };
    const hex = await fingerprint("create_ticket", { ...args, priority: "normal" });
    const client = await mcpClient(run);
    for (const prefix of ["MCP:", "Mcp:", "mCP:"]) {
      const key = `${prefix}${hex}`;
      const inBody = await dev.propose(run, { tool: "create_ticket", args, idempotency_key: key });
      expect(await json(inBody)).toMatchObject({
        reason: "contract_violation",
        issues: [{ path: "idempotency_key" }],
      });
      const inHeader = await dev.propose(
        run,
        { tool: "create_ticket", args },
        { headers: { "Idempotency-Key": key } },
      );
      expect(inHeader.status).toBe(422);
      const meta = await client.callTool({
        name: "create_ticket",
        arguments: args,
        _meta: { [KEY]: key },
      });
      expect(firstJson(meta)).toMatchObject({ reason: "contract_violation" });
    }
    await client.close();
    expect((await dev.runStatus(run)).budget.mutations.used).toBe(0);
  });
});
