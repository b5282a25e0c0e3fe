/**
 * The key of the audit's redaction digests (src/core/redact.ts): the worker secret
 * `AUDIT_REDACTION_KEY` (any random string of 32 characters or more; `npm run keys --
 * redaction-keygen` prints one). Under local development, and only there, a published
 * development key stands in when no secret is set, as for the other development keys; a
 * deployed worker without the secret keeps `redacted` in place of a sensitive value, never the
 * value, and says so on its log.
 */
import { nodeCrypto } from "../core/node-crypto.ts";
import type { Digest } from "../core/redact.ts";
import { isLocalDevelopment } from "./local-dev.ts";

/** Keys digests under `npm run dev` and in tests; public by design, worthless elsewhere. */
export const DEVELOPMENT_REDACTION_KEY = "tf-development-redaction-key-public-never-deployed";

/** The secret as the worker sees it (not declared in wrangler.toml, so not in `Env`). */
interface RedactionSecret {
  AUDIT_REDACTION_KEY?: string;
}

let warned = false;

function secretOf(env: Env, request: Request): string | null {
  const secret = (env as RedactionSecret).AUDIT_REDACTION_KEY;
  if (secret !== undefined && secret !== "") return secret;
  if (isLocalDevelopment(request.headers, request.url)) return DEVELOPMENT_REDACTION_KEY;
  if (!warned) {
    warned = true;
    console.error(
      "AUDIT_REDACTION_KEY is not set: sensitive arguments are kept as `redacted`, unmatchable",
    );
  }
  return null;
}

/**
 * The digest of this request's redactions: HMAC-SHA256, lowercase hex. The key is looked up on
 * the first redaction only, so a call with nothing sensitive pays nothing.
 */
export function redactionDigest(env: Env, request: Request): Digest {
  let secret: string | null | undefined;
  return (text) => {
    if (secret === undefined) secret = secretOf(env, request);
    return secret === null
      ? null
      : nodeCrypto().createHmac("sha256", secret).update(text, "utf8").digest("hex");
  };
}
