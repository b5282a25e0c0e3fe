import { createHmac } from "node:crypto";
import { DEVELOPMENT_REDACTION_KEY } from "../../src/http/redaction.ts";

/** A fresh address per test, so a search for it can only find this test's writes. */
export function newEmail(): string {
  return `reporter-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

/** What the audit keeps for `email`: HMAC-SHA256 of its RFC 8785 form (a JSON string). */
export function digestOf(email: string): string {
  const hex = createHmac("sha256", DEVELOPMENT_REDACTION_KEY)
    .update(JSON.stringify(email))
    .digest("hex");
  return `hmac-sha256:${hex}`;
}
