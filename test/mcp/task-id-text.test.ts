import { describe, expect, it } from "vitest";
import type { RunRef } from "../../src/ledger/protocol.ts";
import { openTask, sealTask, type TaskCall } from "../../src/mcp/tasks.ts";

const SECRET = "task-id-text-secret-0123456789abcdef";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A call whose sealed id ends in a character carrying four unused bits (RFC 4648 §3.5). */
function callWithUnusedBits(): TaskCall {
  const call = (note: string): TaskCall => ({
    tool: "noop",
    args: { note },
    approval: "00000000-0000-4000-8000-000000000000",
    created: 1_790_000_000_000,
    expires: "2026-12-03T00:00:00.000Z",
  });
  // A 12-byte nonce, the JSON, a 16-byte tag: one byte over a multiple of three.
  const note = ["", "x", "xx"].find((n) => (JSON.stringify(call(n)).length + 28) % 3 === 1);
  return call(note ?? "");
}

describe("task id text", () => {
  it("finds no task in an id whose last character differs only in its unused bits", async () => {
    const ref: RunRef = { tenant: "acme", runId: `text-${crypto.randomUUID()}` };
    const call = callWithUnusedBits();
    const id = await sealTask(SECRET, ref, call);
    expect(id).not.toBeNull();
    const body = (id ?? "").slice("tft_".length);
    expect(body.length % 4).toBe(2);
    const last = ALPHABET.indexOf(body.at(-1) ?? "");
    const variant = `${(id ?? "").slice(0, -1)}${ALPHABET[last ^ 1]}`;
    expect(await openTask(SECRET, ref, id)).toEqual(call);
    expect(await openTask(SECRET, ref, variant)).toBeNull();
  });
});
