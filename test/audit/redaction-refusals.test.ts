import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dev, json, newRun, runLedger, verifyAudit } from "../helpers.ts";
import { mcpClient } from "../mcp/helpers.ts";
import { digestOf, newEmail } from "./sensitive.ts";

// A refused call is kept and answered too: its sensitive values (a field some contract marks
// sensitive, here the demo's `create_ticket.reporter_email`) must be in clear in none of the
// answer, the audit (its evidence, export and stored rows) and the decision log line.

/** Every byte the run keeps and shows of its calls: stored rows, the audit and its export. */
async function kept(run: string): Promise<string> {
  const rows = await runInDurableObject(runLedger(run), (_o, state) =>
    JSON.stringify(state.storage.sql.exec("SELECT * FROM audit").toArray()),
  );
  const pages = await Promise.all([
    dev.get(`/v1/runs/${run}/audit`),
    dev.get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" }),
  ]);
  for (const page of pages) expect(page.status).toBe(200);
  expect((await verifyAudit(run)).ok).toBe(true);
  return [rows, ...(await Promise.all(pages.map((p) => p.text())))].join("\n");
}

/** The decision lines written while `work` ran, as text. */
async function logged(work: () => Promise<unknown>): Promise<string> {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  await work();
  return log.mock.calls
    .map(([first]) => (typeof first === "string" ? first : ""))
    .filter((text) => text.includes('"event":"toolfence.decision"'))
    .join("\n");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a call to a tool no contract names", () => {
  it("keeps every argument some contract marks sensitive as its digest, at any depth", async () => {
    const run = newRun();
    const [top, nested] = [newEmail(), newEmail()];
    let answers = "";
    const line = await logged(async () => {
      for (const body of [
        { tool: "create_tickets", args: { ticket_id: "T-1", reporter_email: top } },
        { tool: "open_ticket", args: { ticket: { reporter_email: nested }, idempotency: 1 } },
      ]) {
        const res = await dev.propose(run, body);
        expect(res.status).toBe(422);
        const text = await res.text();
        expect(JSON.parse(text).reason).toBe("unknown_tool");
        answers += text;
      }
    });
    const seen = await kept(run);
    for (const email of [top, nested]) {
      expect(seen).not.toContain(email);
      expect(seen).toContain(digestOf(email));
      expect(answers).not.toContain(email);
      expect(line).not.toContain(email);
    }
    // The rest of the body is kept as received: the operator still sees what was asked.
    expect(seen).toContain("create_tickets");
    expect(seen).toContain('\\"ticket_id\\":\\"T-1\\"');
  });

  it("is redacted alike over MCP", async () => {
    const run = newRun();
    const email = newEmail();
    const client = await mcpClient(run);
    const refused = await client
      .callTool({ name: "create_tickets", arguments: { reporter_email: email } })
      .then(
        (r) => JSON.stringify(r),
        (e: unknown) => String(e),
      );
    await client.close();
    expect(refused).toContain("Unknown tool");
    const seen = await kept(run);
    expect(seen).toContain("unknown_tool");
    expect(seen).not.toContain(email);
    expect(seen).toContain(digestOf(email));
  });
});

describe("a refusal's issues", () => {
  it("never echo a sensitive value, in the answer or the log line", async () => {
    const run = newRun();
    const email = newEmail();
    let answers = "";
    const line = await logged(async () => {
      for (const reporter_email of [`${email}@@`, `${email}${"x".repeat(300)}`]) {
        const res = await dev.propose(run, {
          tool: "create_ticket",
          args: { ticket_id: "T-1", reporter_email },
          idempotency_key: `k-echo-${crypto.randomUUID()}`,
        });
        expect(res.status).toBe(422);
        const text = await res.text();
        const problem = JSON.parse(text) as { issues: { path: string }[] };
        expect(problem.issues.map((i) => i.path)).toContain("reporter_email");
        answers += text;
      }
    });
    expect(answers).not.toContain(email);
    expect(answers).toContain("sensitive");
    expect(line).not.toContain(email);
    expect(await kept(run)).not.toContain(email);
  });

  it("never echo a sensitive value over MCP", async () => {
    const run = newRun();
    const email = newEmail();
    const client = await mcpClient(run);
    const result = await client.callTool({
      name: "create_ticket",
      arguments: { ticket_id: "T-1", reporter_email: `${email}@@` },
      _meta: { "io.toolfence/idempotency-key": "k-echo-mcp-1" },
    });
    await client.close();
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result);
    expect(text).toContain("reporter_email");
    expect(text).not.toContain(email);
    expect(await kept(run)).not.toContain(email);
  });

  it("never echo arguments sent as one string, which the audit keeps as a digest", async () => {
    const run = newRun();
    const email = newEmail();
    const res = await dev.propose(run, {
      tool: "create_ticket",
      args: JSON.stringify({ ticket_id: "T-1", reporter_email: email }),
      idempotency_key: "k-echo-string-1",
    });
    // Not a call: `args` must be an object, so no member of the string can be told apart.
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain(email);
    const seen = await kept(run);
    expect(seen).toContain("malformed_payload");
    expect(seen).not.toContain(email);
  });

  it("still show a value the contract does not mark sensitive, so the model can re-plan", async () => {
    const res = await dev.propose(newRun(), {
      tool: "create_ticket",
      args: { ticket_id: "T-1", priority: "soonish" },
      idempotency_key: "k-echo-plain-1",
    });
    const problem = await json<{ issues: { path: string; received: string }[] }>(res);
    expect(problem.issues).toContainEqual(
      expect.objectContaining({ path: "priority", received: '"soonish"' }),
    );
  });
});
