import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../src/core/shapes/audit.ts";
import { ProblemSchema } from "../src/core/shapes/decision.ts";
import {
  answerOf,
  auditPage,
  type CallOptions,
  get,
  newRun,
  propose,
  type RunStatusView,
  runStatus,
} from "./helpers.ts";

/** What the fence holds for a run: its status and its whole audit log. */
async function ledgerOf(run: string): Promise<{ status: RunStatusView; audit: AuditEntry[] }> {
  return { status: await runStatus(run), audit: (await auditPage(run)).entries };
}

/** A run with one applied mutation, so a refusal after it has something to leave intact. */
async function runWithOneMutation(): Promise<string> {
  const run = newRun();
  const res = await propose(run, {
    tool: "create_ticket",
    args: { ticket_id: `T-${crypto.randomUUID()}` },
    idempotency_key: "k-before-001",
  });
  expect(res.status).toBe(200);
  return run;
}

const noop = JSON.stringify({ tool: "noop", args: {} });
const deep = (depth: number) =>
  `{"tool":"noop","args":{"note":${"[".repeat(depth)}${"]".repeat(depth)}}}`;

// [what, body, options, status, reason]: each is refused and recorded as one blocked entry.
const RECORDED: [string, string, CallOptions, number, string][] = [
  [
    "a body over 64 KiB",
    `{"tool":"noop","args":{"note":"${"x".repeat(70_000)}"}}`,
    {},
    413,
    "payload_too_large",
  ],
  ["nesting deeper than 32 levels", deep(40), {}, 413, "payload_too_large"],
  [
    "duplicate member names",
    '{"tool":"noop","tool":"create_ticket","args":{}}',
    {},
    400,
    "malformed_payload",
  ],
  [
    "a lone surrogate escape",
    '{"tool":"noop","args":{"note":"\\ud800"}}',
    {},
    400,
    "malformed_payload",
  ],
  [
    "a number beyond the double range",
    '{"tool":"noop","args":{"note":1e400}}',
    {},
    400,
    "malformed_payload",
  ],
  [
    "a __proto__ member",
    '{"tool":"noop","args":{"__proto__":{"polluted":true}}}',
    {},
    400,
    "malformed_payload",
  ],
  [
    "a constructor member",
    '{"tool":"noop","args":{"constructor":{"prototype":{"polluted":true}}}}',
    {},
    400,
    "malformed_payload",
  ],
  [
    "a prototype member at the top",
    '{"prototype":{"polluted":true},"tool":"noop","args":{}}',
    {},
    400,
    "malformed_payload",
  ],
  [
    "a __proto__ member inside OpenAI arguments",
    JSON.stringify({
      type: "function",
      function: { name: "noop", arguments: '{"__proto__":{"polluted":true}}' },
    }),
    {},
    400,
    "malformed_payload",
  ],
  ["an XML content type", noop, { contentType: "application/xml" }, 415, "unsupported_media_type"],
  ["no content type", noop, { contentType: null }, 415, "unsupported_media_type"],
  [
    "a Latin-1 charset",
    noop,
    { contentType: "application/json; charset=iso-8859-1" },
    415,
    "unsupported_media_type",
  ],
  // Fetch refuses only NUL, CR and LF in a header value: other control characters arrive.
  ...["\t", "\u0001", "\u001f", "\u007f"].map(
    (ch): [string, string, CallOptions, number, string] => [
      `${JSON.stringify(ch)} in the Idempotency-Key header`,
      noop,
      { headers: { "Idempotency-Key": `k-abc${ch}def1` } },
      422,
      "contract_violation",
    ],
  ),
  [
    "an Idempotency-Key header of 4 KiB",
    noop,
    { headers: { "Idempotency-Key": "k".repeat(4096) } },
    422,
    "contract_violation",
  ],
];

// Refused before any run is touched: nothing is recorded.
const UNRECORDED: [string, CallOptions, number, string][] = [
  [
    "headers over 16 KiB",
    { headers: { "X-Padding": "p".repeat(20_000) } },
    431,
    "headers_too_large",
  ],
  ...["\t", "\u0001", "\u007f"].map((ch): [string, CallOptions, number, string] => [
    `${JSON.stringify(ch)} in the Authorization header`,
    { headers: { Authorization: `Bearer tf_dev${ch}local_key` } },
    401,
    "unauthenticated",
  ]),
  [
    "an Authorization header of 8 KiB",
    { headers: { Authorization: `Bearer ${"a".repeat(8192)}` } },
    401,
    "unauthenticated",
  ],
];

describe("hostile input", () => {
  it.each(RECORDED)(
    "refuses %s and records it once, leaving the budget as it was",
    async (_what, body, opts, status, reason) => {
      const run = await runWithOneMutation();
      const before = await ledgerOf(run);
      const res = await propose(run, body, opts);
      expect(res.status).toBe(status);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
      expect(await answerOf(ProblemSchema, res)).toMatchObject({ decision: "block", reason });
      const after = await ledgerOf(run);
      expect(after.audit.slice(0, -1)).toEqual(before.audit);
      expect(after.audit.at(-1)).toMatchObject({
        decision: "block",
        reason,
        budget_after: { mutations: 1 },
      });
      expect(after.status.budget).toEqual(before.status.budget);
      expect(after.status.status).toBe("open");
    },
  );

  it.each(UNRECORDED)(
    "refuses %s before the run, which stays as it was",
    async (_what, opts, status, reason) => {
      const run = await runWithOneMutation();
      const before = await ledgerOf(run);
      const res = await propose(run, noop, opts);
      expect(res.status).toBe(status);
      expect(await answerOf(ProblemSchema, res)).toMatchObject({ decision: "block", reason });
      expect(await ledgerOf(run)).toEqual(before);
    },
  );

  it("leaves Object.prototype untouched after every prototype-shaped call", async () => {
    const own = Object.getOwnPropertyNames(Object.prototype).sort();
    const run = newRun();
    for (const [, body, opts] of RECORDED) await propose(run, body, opts);
    await propose(
      run,
      `\`\`\`json\n{"tool":"noop","args":{"__proto__":{"polluted":true}}}\n\`\`\``,
      {
        contentType: "text/plain",
      },
    );
    await get(`/v1/runs/${run}/audit`);
    await get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" });
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(own);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
