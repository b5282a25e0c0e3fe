import { describe, expect, it } from "vitest";
import { evidenceOf } from "../../src/http/evidence.ts";
import { AUDIT_PAYLOAD_CAP } from "../../src/http/limits.ts";
import { dev, json, newRun, propose } from "../helpers.ts";

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;

describe("the audit's copy of a body", () => {
  it("cuts on a character boundary: an emoji across the cap is dropped whole", () => {
    const text = `${"a".repeat(AUDIT_PAYLOAD_CAP - 2)}😀${"b".repeat(10)}`;
    const evidence = evidenceOf("text/plain", text);
    expect(evidence.truncated).toBe(true);
    expect(evidence.payload).toBe("a".repeat(AUDIT_PAYLOAD_CAP - 2));
    expect(evidence.payload).not.toContain("\ufffd");
  });

  it("caps by UTF-8 bytes, not UTF-16 code units", () => {
    const cjk = "漢".repeat(AUDIT_PAYLOAD_CAP); // 3 bytes each: 24 KiB in all
    const evidence = evidenceOf("text/plain", cjk);
    expect(bytes(evidence.payload)).toBeLessThanOrEqual(AUDIT_PAYLOAD_CAP);
    expect(bytes(evidence.payload)).toBeGreaterThan(AUDIT_PAYLOAD_CAP - 3);
    expect(evidence.payload).toBe("漢".repeat(Math.floor(AUDIT_PAYLOAD_CAP / 3)));
  });

  it("keeps a body under the cap as it is", () => {
    expect(evidenceOf(null, "héllo")).toEqual({
      contentType: null,
      payload: "héllo",
      truncated: false,
    });
  });

  it("stores the cut copy through HTTP, still valid text", async () => {
    const run = newRun("evidence");
    // A call the gate can read (its note is too long), so the audit keeps its text, cut.
    const body = JSON.stringify({ tool: "noop", args: { note: "😀".repeat(3000) } });
    expect((await propose(run, body)).status).toBe(422);
    const audit = await json<{ entries: { payload: string; payload_truncated: boolean }[] }>(
      await dev.get(`/v1/runs/${run}/audit`),
    );
    const entry = audit.entries[0];
    expect(entry?.payload_truncated).toBe(true);
    expect(bytes(entry?.payload ?? "")).toBeLessThanOrEqual(AUDIT_PAYLOAD_CAP);
    expect(entry?.payload).not.toContain("\ufffd");
  });
});
