import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../demo/contracts/index.ts";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import { fingerprint } from "../src/core/canonical.ts";
import { gate } from "../src/core/gate.ts";
import { startFence } from "../src/fence.ts";

const limits = { maxDepth: 32 };
const digest = (text: string) => createHmac("sha256", "gate-test-key").update(text).digest("hex");
const raw = (body: unknown, callerTools: string[] | null = null) => ({
  contentType: "application/json",
  text: JSON.stringify(body),
  headerKey: null,
  callerTools,
});

describe("the stateless gate", () => {
  it("refuses a tool the policy does not allow", async () => {
    const fence = startFence(CONTRACTS, { ...policy, allowed_tools: ["noop"] });
    const result = await gate(fence, raw({ tool: "fetch_service_logs", args: {} }), limits, digest);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.refusal.reason).toBe("tool_not_allowed");
  });

  it("refuses a tool outside the caller's own list", async () => {
    const fence = startFence(CONTRACTS, policy);
    const result = await gate(
      fence,
      raw({ tool: "noop", args: {} }, ["fetch_service_logs"]),
      limits,
      digest,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.refusal.reason).toBe("tool_not_allowed");
  });

  it("passes on only the validated arguments, defaults applied", async () => {
    const fence = startFence(CONTRACTS, policy);
    const call = {
      tool: "create_ticket",
      args: { ticket_id: "T-9" },
      idempotency_key: "k-gate-0001",
    };
    const result = await gate(fence, raw(call), limits, digest);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.args).toEqual({ ticket_id: "T-9", priority: "normal" });
      expect(result.value.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("gives permuted arguments one fingerprint", async () => {
    const fence = startFence(CONTRACTS, policy);
    const a = await gate(
      fence,
      raw({ tool: "fetch_service_logs", args: { service: "a", window: "1h" } }),
      limits,
      digest,
    );
    const b = await gate(
      fence,
      raw({ args: { window: "1h", service: "a" }, tool: "fetch_service_logs" }),
      limits,
      digest,
    );
    expect(a.ok && b.ok && a.value.fingerprint === b.value.fingerprint).toBe(true);
  });

  it("fingerprints a sensitive argument only through its keyed digest", async () => {
    const fence = startFence(CONTRACTS, policy);
    const ticket = (email: string) => ({
      tool: "create_ticket",
      args: { ticket_id: "T-9", reporter_email: email },
      idempotency_key: "k-gate-0002",
    });
    const other = (text: string) => createHmac("sha256", "other-key").update(text).digest("hex");
    const [ada, bob, adaElsewhere] = await Promise.all([
      gate(fence, raw(ticket("ada@example.com")), limits, digest),
      gate(fence, raw(ticket("bob@example.com")), limits, digest),
      gate(fence, raw(ticket("ada@example.com")), limits, other),
    ]);
    if (!ada.ok || !bob.ok || !adaElsewhere.ok) throw new Error("expected three gated calls");
    const guessed = await fingerprint("create_ticket", ada.value.args);
    expect(ada.value.fingerprint).not.toBe(guessed);
    expect(ada.value.fingerprint).not.toBe(bob.value.fingerprint);
    expect(ada.value.fingerprint).not.toBe(adaElsewhere.value.fingerprint);
  });
});
