import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/core/canonical.ts";
import { DEV_KEY } from "../helpers.ts";
import { firstJson, mcpClient } from "../mcp/helpers.ts";
import { Browser } from "../oauth/helpers.ts";
import { callNotes, connect, connectUrlOf, principal } from "./helpers.ts";
import { StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

describe("a principal's upstream tokens", () => {
  it("appear in no answer, audit entry, page or log line, whatever the calls come to", async () => {
    const lines: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      });
    }
    const standIn = new StandIn().install();
    const who = await principal();
    const seen: string[] = [];
    const first = await callNotes(who);
    seen.push(JSON.stringify(first.body));
    const { text } = await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    seen.push(text);
    seen.push(JSON.stringify((await callNotes(who, first.run)).body));
    // Expired, refreshed; then refused by the upstream (401), then asked to connect again.
    const objects = env.CONNECTIONS.getByName(`default/key.${await sha256Hex(who.key)}`);
    await runInDurableObject(objects, (_, state) => {
      state.storage.sql.exec("UPDATE connection SET expires_at = 1, issued_at = 0");
    });
    seen.push(
      JSON.stringify(
        (await callNotes(who, first.run, "notes_add_note", { text: "x" }, "k-note-x")).body,
      ),
    );
    standIn.revokeAllOf("ada");
    seen.push(JSON.stringify((await callNotes(who, first.run)).body));
    seen.push(JSON.stringify((await callNotes(who, first.run)).body));
    const client = await mcpClient(first.run, { era: "auto", key: who.key, address: "127.0.0.1" });
    seen.push(
      JSON.stringify(firstJson(await client.callTool({ name: "notes_whoami", arguments: {} }))),
    );
    await client.close();
    const operator = new Browser();
    await operator.post("/console/sign-in", { key: DEV_KEY });
    seen.push(await (await operator.fetch("/console/connections/tenant")).text());
    seen.push(await (await operator.fetch(`/console/runs/${first.run}`)).text());
    const audit = await fetchAudit(first.run);
    expect(audit.status).toBe(200);
    seen.push(await audit.text());
    expect(standIn.grants).toContain("refresh_token");
    expect(standIn.bearers.length).toBeGreaterThan(2);
    const everything = [...seen, ...lines].join("\n");
    for (const token of standIn.issued) expect(everything).not.toContain(token);
  });
});

/** The run's whole audit, as an operator downloads it. */
function fetchAudit(run: string): Promise<Response> {
  return new Browser().fetch(`/v1/runs/${run}/audit`, {
    headers: { Authorization: `Bearer ${DEV_KEY}`, Accept: "application/x-ndjson" },
  });
}
