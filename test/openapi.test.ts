import { exports } from "cloudflare:workers";
import { validate } from "@readme/openapi-parser";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { FENCE } from "../demo/fence.ts";
import { buildApp } from "../src/app.ts";
import { DECISION_TABLE, type Reason } from "../src/core/reasons.ts";
import { ApprovalSchema } from "../src/core/shapes/approval.ts";
import { AuditPageSchema, EscalationSchema } from "../src/core/shapes/audit.ts";
import { CallResultSchema, PendingSchema, ProblemSchema } from "../src/core/shapes/decision.ts";
import { HaltViewSchema, RunViewSchema } from "../src/core/shapes/run.ts";
import { CONNECTION_PATHS } from "../src/http/openapi-connection-routes.ts";
import { OAUTH_PATHS } from "../src/http/openapi-oauth-routes.ts";
import * as approvals from "../src/http/wire-approvals.ts";
import * as wire from "../src/http/wire-schemas.ts";
import { postJson, urgentTicket } from "./approvals/helpers.ts";
import { get, json, newRun, post, propose, put, seedTicket, ticketCall } from "./helpers.ts";

type Json = Record<string, unknown>;
type Operation = { responses: Record<string, { content?: Record<string, { schema: Json }> }> };

/** `/openapi.json` as a client without any key fetches it. */
async function fetchDocument(): Promise<{ response: Response; doc: Json }> {
  const response = await exports.default.fetch("http://localhost/openapi.json");
  return { response, doc: (await response.clone().json()) as Json };
}

function operations(doc: Json): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      out.set(`${method.toUpperCase()} ${path}`, op as Operation);
    }
  }
  return out;
}

/** The reasons a problem answer of `status` narrows its schema to (none for a success). */
function narrowedReasons(op: Operation, status: string): string[] {
  const content = op.responses[status]?.content ?? {};
  const schema = (content["application/problem+json"] ?? content["application/json"])?.schema;
  const allOf = (schema?.allOf ?? []) as { properties?: { reason?: { enum: string[] } } }[];
  return allOf[1]?.properties?.reason?.enum ?? [];
}

describe("GET /openapi.json", () => {
  it("is served without a key as JSON, and is a valid OpenAPI 3.1 document", async () => {
    const { response, doc } = await fetchDocument();
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/json");
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it("describes every route the app serves, and nothing else", async () => {
    const { doc } = await fetchDocument();
    const served = buildApp(FENCE)
      .routes.filter((r) => r.method !== "ALL")
      // The HTML console and the demo's MCP server are not the REST API, except the console's
      // connection pages and forms, which a refused call's connect_url and people use.
      .filter((r) => !r.path.startsWith("/console") || r.path.startsWith("/console/connections"))
      .filter((r) => !r.path.startsWith("/demo/"))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    // The OAuth provider in front of the app serves the metadata, token and registration (and
    // the console the consent page), the worker the fence's client document; the console's
    // connection routes are among those served.
    const connections = Object.entries(CONNECTION_PATHS).filter(
      ([path]) => !path.startsWith("/console/connections"),
    );
    const beside = [...Object.entries(OAUTH_PATHS), ...connections].flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(operations(doc).keys())).toEqual(new Set([...served, ...beside]));
  });

  it("takes the problem's reason and decision enums from the decision table", async () => {
    const { doc } = await fetchDocument();
    const problem = (doc.components as { schemas: Record<string, Json> }).schemas.Problem as {
      properties: Record<string, { enum: string[] }>;
    };
    expect(problem.properties.reason?.enum).toEqual(Object.keys(DECISION_TABLE));
    const decisions = new Set(Object.values(DECISION_TABLE).map((rule) => rule.decision));
    expect(new Set(problem.properties.decision?.enum)).toEqual(decisions);
  });

  it("names in the X-Cache header every way a read is served, a memory hit included", async () => {
    const { doc } = await fetchDocument();
    const headers = (doc.components as { headers: Record<string, { schema: { enum: string[] } }> })
      .headers;
    const run = newRun("openapi");
    const read = { tool: "get_ticket", args: { ticket_id: await seedTicket() } };
    const served = [];
    for (const _ of [1, 2]) served.push((await propose(run, read)).headers.get("X-Cache"));
    expect(served).toEqual(["miss", "hit-memory"]);
    for (const value of served) expect(headers["X-Cache"]?.schema.enum).toContain(value);
  });

  it("lists under each problem status only reasons the table answers with that status", async () => {
    const { doc } = await fetchDocument();
    const calls = operations(doc).get("POST /v1/runs/{run_id}/calls") as Operation;
    expect(narrowedReasons(calls, "403")).toContain("budget_exhausted");
    expect(narrowedReasons(calls, "202")).toEqual(["approval_required"]);
    for (const [name, op] of operations(doc)) {
      // OAuth answers with RFC 6749 errors, the connect pages in HTML: not the table's problems.
      const path = name.split(" ")[1] ?? "";
      if (path in OAUTH_PATHS || path in CONNECTION_PATHS) continue;
      expect(narrowedReasons(op, "500"), name).toEqual(["internal_error"]);
      for (const status of Object.keys(op.responses)) {
        const reasons = narrowedReasons(op, status);
        for (const reason of reasons) {
          expect(DECISION_TABLE[reason as Reason].status, `${name} ${reason}`).toBe(Number(status));
        }
      }
    }
  });
});

describe("the wire schemas the document is generated from", () => {
  it("accept the answers the routes actually send", async () => {
    const run = newRun("openapi");
    const opened = await put(`/v1/runs/${run}`, { max_mutations: 3 });
    expect(opened.status).toBe(201);
    v.parse(RunViewSchema, await json(opened));
    const ticket = await seedTicket();
    const call = ticketCall("add_comment", { ticket_id: ticket, body: "x" }, "k-openapi-0001");
    v.parse(CallResultSchema, await json(await propose(run, call)));
    const replay = await json(await propose(run, call));
    expect(v.parse(CallResultSchema, replay).decision).toBe("replayed");
    const refused = await propose(run, { tool: "no_such_tool", args: {} });
    expect(v.parse(ProblemSchema, await json(refused)).reason).toBe("unknown_tool");
    v.parse(RunViewSchema, await json(await get(`/v1/runs/${run}`)));
    const audit = v.parse(AuditPageSchema, await json(await get(`/v1/runs/${run}/audit`)));
    expect(audit.entries.length).toBeGreaterThan(0);
    v.parse(wire.EscalationsPageSchema, await json(await get(`/v1/runs/${run}/escalations`)));
    v.parse(wire.CatalogueSchema, await json(await get("/v1/tools")));
    v.parse(HaltViewSchema, await json(await post(`/v1/runs/${run}/halt`)));
  });

  it("accept the approval, escalation and audit key answers", async () => {
    const run = newRun("openapi");
    const waiting = await propose(run, urgentTicket("k-openapi-urgent-1"));
    expect(waiting.status).toBe(202);
    const pending = v.parse(PendingSchema, await json(waiting));
    expect(pending.decision).toBe("needs_approval");
    const id = pending.approval_id;
    v.parse(approvals.RunApprovalsSchema, await json(await get(`/v1/runs/${run}/approvals`)));
    v.parse(approvals.TenantApprovalsSchema, await json(await get("/v1/approvals")));
    const decided = await postJson(`/v1/runs/${run}/approvals/${id}`, { decision: "approve" });
    expect(v.parse(ApprovalSchema, await json(decided)).status).toBe("approved");
    // A comment on a ticket the desk never had: the tool rejects it, an escalation.
    const missing = { ticket_id: `T-${crypto.randomUUID()}`, body: "x" };
    expect((await propose(run, ticketCall("add_comment", missing, "k-openapi-esc-1"))).status).toBe(
      502,
    );
    const page = await json(await get(`/v1/runs/${run}/escalations`));
    const [open] = v.parse(wire.EscalationsPageSchema, page).escalations;
    const resolved = await postJson(`/v1/runs/${run}/escalations/${open?.seq}`, {
      resolution: "closed",
    });
    expect(v.parse(EscalationSchema, await json(resolved)).resolution?.resolution).toBe("closed");
    // From this machine, the development signing key is published (src/http/audit-keys.ts).
    const keys = await exports.default.fetch("http://localhost/.well-known/toolfence-audit-keys", {
      headers: { "CF-Connecting-IP": "127.0.0.1" },
    });
    expect(v.parse(approvals.AuditKeysSchema, await json(keys)).keys.length).toBeGreaterThan(0);
  });

  it("refuse what the fence refuses", () => {
    const bad = { tool: "noop", args: {}, idempotency_key: "short" };
    expect(v.safeParse(wire.CanonicalCallSchema, bad).success).toBe(false);
    expect(v.safeParse(wire.CanonicalCallSchema, { tool: "noop", args: {} }).success).toBe(true);
  });
});
