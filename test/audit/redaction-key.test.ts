import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createTicket } from "../../demo/contracts/create_ticket.ts";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import policy from "../../demo/contracts/policy.json";
import { loadFence } from "../../src/core/policy.ts";
import { redactedValue } from "../../src/core/redact.ts";
import { DEVELOPMENT_REDACTION_KEY, redactionDigest } from "../../src/http/redaction.ts";

const email = "someone@example.com";

/** A request as Cloudflare's edge hands it to a deployed worker: it carries CF-Ray. */
const deployed = new Request("https://fence.example.com/v1/runs/r/calls", {
  headers: { "CF-Ray": "8f00000000000000-AMS", "CF-Connecting-IP": "203.0.113.9" },
});

/** A request as `wrangler dev` hands it over from this machine. */
const local = new Request("http://127.0.0.1:8787/v1/runs/r/calls", {
  headers: { "CF-Connecting-IP": "127.0.0.1" },
});

function hmac(key: string, text: string): string {
  return `hmac-sha256:${createHmac("sha256", key).update(text).digest("hex")}`;
}

describe("the redaction key", () => {
  it("is the secret when set, on a deployed worker", () => {
    const secret = "a-secret-of-at-least-thirty-two-characters";
    const env = { AUDIT_REDACTION_KEY: secret } as unknown as Env;
    const kept = redactedValue(email, redactionDigest(env, deployed));
    expect(kept).toBe(hmac(secret, JSON.stringify(email)));
  });

  it("is the development key under local development without a secret", () => {
    const kept = redactedValue(email, redactionDigest({} as Env, local));
    expect(kept).toBe(hmac(DEVELOPMENT_REDACTION_KEY, JSON.stringify(email)));
  });

  it("never falls back to the development key on a deployed worker", () => {
    const kept = redactedValue(email, redactionDigest({} as Env, deployed));
    expect(kept).toBe("redacted");
    expect(kept).not.toContain(email);
  });
});

describe("a contract's sensitive names", () => {
  it("must name arguments of its input schema", () => {
    const typo = { ...createTicket, sensitive: ["reporter_email", "reporter_mail"] };
    const others = CONTRACTS.filter((c) => c.name !== createTicket.name);
    const loaded = loadFence(policy, [...others, typo]);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.error).toEqual([
      'contracts.create_ticket.sensitive: no argument named "reporter_mail"',
    ]);
  });

  it("loads the demo contracts, whose create_ticket marks reporter_email", () => {
    expect(loadFence(policy, CONTRACTS).ok).toBe(true);
    expect(createTicket.sensitive).toEqual(["reporter_email"]);
  });
});
