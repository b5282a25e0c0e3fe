import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { callKey, canonicalJson } from "../../client/intent.ts";

describe("the key a framework adapter gives a mutation", () => {
  it("is one key per run, tool and arguments, and no plain hash a guess could confirm", async () => {
    const args = { ticket_id: "T-1", reporter_email: "ada@example.com" };
    const key = await callKey("run-1", "create_ticket", args);
    expect(key).toMatch(/^intent:[0-9a-f]{64}$/);
    const permuted = { reporter_email: "ada@example.com", ticket_id: "T-1" };
    expect(await callKey("run-1", "create_ticket", permuted)).toBe(key);
    expect(await callKey("run-2", "create_ticket", args)).not.toBe(key);
    const guess = JSON.stringify(["run-1", "create_ticket", canonicalJson(args)]);
    expect(key).not.toBe(`intent:${createHash("sha256").update(guess).digest("hex")}`);
  });
});
