/**
 * What the audit keeps of a call's text: as received, cut to AUDIT_PAYLOAD_CAP bytes, with
 * each value its contract marks sensitive replaced by a keyed digest (src/core/redact.ts), a
 * refused call's every member some contract marks sensitive too, and a body the fence could
 * not read as a call kept whole or, when the policy says `audit_unparsed: "digest"`, as its
 * digest only.
 */
import type { GatedCall, GateFailure } from "../core/gate.ts";
import type { Fence } from "../core/policy.ts";
import {
  type Digest,
  digestOfText,
  redactArgs,
  redactNamed,
  redactText,
  sensitiveNames,
} from "../core/redact.ts";
import type { Result } from "../core/result.ts";
import { cutUtf8 } from "../core/upstream-excerpt.ts";
import type { Evidence } from "../ledger/protocol.ts";
import { AUDIT_PAYLOAD_CAP } from "./limits.ts";

/**
 * What was received, for the audit: at most AUDIT_PAYLOAD_CAP bytes of UTF-8, cut on a code
 * point boundary so no character is split (a cut inside a surrogate pair or a multi-byte
 * sequence would store U+FFFD instead of what was sent).
 */
export function evidenceOf(contentType: string | null, text: string): Evidence {
  const payload = cutUtf8(text, AUDIT_PAYLOAD_CAP);
  return { contentType, payload, truncated: payload !== text };
}

/** The call's text as the audit may keep it, before the byte cap. */
export function keptText(
  fence: Fence,
  text: string,
  gated: Result<GatedCall, GateFailure>,
  digest: Digest,
): string {
  if (gated.ok) return redactText(gated.value.contract, gated.value.args, text, digest);
  const { tool, args } = gated.error;
  if (tool === null) {
    // Not readable as a call: no argument can be told apart from any other text.
    return fence.policy.audit_unparsed === "digest" && text !== ""
      ? digestOfText(text, digest)
      : text;
  }
  // Refused arguments were never validated: a sensitive value may sit at any depth, and a
  // tool no contract names has no list of its own, so every contract's sensitive names count.
  return redactNamed(sensitiveNames(fence.tools), args, text, digest);
}

/** The validated arguments as approvals keep them, when the contract marks any sensitive. */
export function auditArgsOf(call: GatedCall, digest: Digest): string | undefined {
  if ((call.contract.sensitive ?? []).length === 0) return undefined;
  return JSON.stringify(redactArgs(call.contract, call.args, digest));
}
