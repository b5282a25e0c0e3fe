/** What one execution of a tool comes to, shared by the call and the result rules' guard. */
import type { GuardFinding } from "../core/guardrails/scan.ts";
import type { Refusal } from "../core/reasons.ts";
import type { UpstreamReply } from "../core/upstream-excerpt.ts";

/**
 * The result of one execution: a result that passed the output contract and the result rules
 * (with what the rules did), or why not, with what the upstream answered when its answer (or
 * its silence) is why; that reply is raw, and is excerpted and redacted before it is kept.
 */
export type Execution =
  | { ok: true; result: unknown; findings?: readonly GuardFinding[] }
  | {
      ok: false;
      refusal: Refusal;
      findings?: readonly GuardFinding[];
      reply?: UpstreamReply;
    };
