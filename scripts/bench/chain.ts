/**
 * What the audit's hash chain costs per entry: the RFC 8785 form of the entry as the API
 * publishes it, and its SHA-256 (synchronous, so the ledger hashes inside its transaction), as
 * the fence computes it (`node:crypto`) and in pure JavaScript (@noble/hashes, the portable
 * alternative) for comparison. Without the chain an entry costs neither; this is the whole
 * per-entry difference, measured in Node.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { entryHash, sha256HexSync } from "../../src/core/audit-chain.ts";
import { canonicalize } from "../../src/core/canonical.ts";
import { AUDIT_PAYLOAD_CAP } from "../../src/http/limits.ts";
import { type AuditRow, auditEntry } from "../../src/ledger/views.ts";
import { measure } from "./gate.ts";
import type { Table } from "./table.ts";

/** An entry of a call whose payload is `payload`, as the ledger writes it. */
function entryWith(payload: string): Record<string, unknown> {
  const row = {
    seq: 1024,
    call_id: "5b0c1f8e-7d1a-4c7e-9a51-1f0a8e2b9c3d",
    at: Date.UTC(2026, 11, 3, 9, 0, 0),
    tool: "create_ticket",
    form: "native",
    decision: "pending",
    reason: null,
    status: null,
    idempotency_key: "k-incident-42-create",
    fingerprint: "9f2c".repeat(16),
    cache: null,
    duration_ms: null,
    mutations_used: 1,
    paid_used: 1,
    content_type: "application/json",
    payload,
    payload_truncated: 0,
    lease_expires_at: null,
    approval_id: null,
    actor: null,
    note: null,
    resolves: null,
    of: null,
    prev: "3a7d".repeat(16),
    hash: "",
  } as unknown as AuditRow;
  return auditEntry(row) as unknown as Record<string, unknown>;
}

function payload(bytes: number): string {
  const head = '{"tool":"create_ticket","args":{"ticket_id":"T-1","body":"';
  const tail = '"},"idempotency_key":"k-incident-42-create"}';
  return head + "x".repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}

/** µs per entry of the chain's two stages and of pure-JavaScript SHA-256, for three sizes. */
export async function benchChain(quick: boolean): Promise<Table> {
  const sizes = [
    { name: "noop call", payload: '{"tool":"noop","args":{}}' },
    { name: "2 KB call", payload: payload(2_048) },
    {
      name: `capped payload (${AUDIT_PAYLOAD_CAP / 1024} KiB)`,
      payload: payload(AUDIT_PAYLOAD_CAP),
    },
  ];
  const tasks: [string, () => unknown][] = [];
  const texts = new Map<string, string>();
  for (const s of sizes) {
    const entry = entryWith(s.payload);
    const { hash: _, ...rest } = entry;
    const text = canonicalize(rest);
    texts.set(s.name, text);
    tasks.push([`${s.name}: canonical`, () => canonicalize(rest)]);
    tasks.push([`${s.name}: sha256`, () => sha256HexSync(text)]);
    tasks.push([`${s.name}: entry`, () => entryHash(entry)]);
    tasks.push([`${s.name}: noble`, () => bytesToHex(sha256(utf8ToBytes(text)))]);
  }
  const rounds = quick ? 1 : 3;
  const us = await measure(tasks, { rounds, time: quick ? 200 : 500, perIteration: 1 });
  const cell = (key: string) => (us.get(key) ?? Number.NaN).toFixed(2);
  return {
    title: "The audit chain's cost per entry",
    note:
      "µs per entry (tinybench, Node, median of " +
      `${rounds} round(s)): the RFC 8785 form of the entry as published, its SHA-256 as the ` +
      "ledger computes it (`node:crypto`, synchronous and native, inside the decision's " +
      "transaction), the two together (what `append` adds per entry over an unchained log, " +
      "where an entry costs neither), and the same SHA-256 in pure JavaScript " +
      "(@noble/hashes, the portable alternative). An admitted call writes two entries, a " +
      "refused or cached one one.",
    head: [
      "entry",
      "bytes",
      "canonical µs",
      "SHA-256 µs",
      "chain µs per entry",
      "pure-JS SHA-256 µs",
    ],
    rows: sizes.map((s) => [
      s.name,
      String(new TextEncoder().encode(texts.get(s.name) ?? "").byteLength),
      cell(`${s.name}: canonical`),
      cell(`${s.name}: sha256`),
      cell(`${s.name}: entry`),
      cell(`${s.name}: noble`),
    ]),
  };
}
