/** What one execution of a tool comes to, shared by the call and the result rules' guard. */
import type { GuardFinding } from "../core/guardrails/scan.ts";
import type { Refusal } from "../core/reasons.ts";
import type { UpstreamReply } from "../core/upstream-excerpt.ts";
import type { UpstreamInput } from "./mcp.ts";

/**
 * The result of one execution: a result that passed the output contract and the result rules
 * (with what the rules did), or why not, with what the upstream answered when its answer (or
 * its silence) is why; that reply is raw, and is excerpted and redacted before it is kept.
 */
export type Execution =
  | { ok: true; result: unknown; findings?: readonly GuardFinding[] }
  // An MCP upstream asked the client for input first; the refusal stands for any reader that
  // does not continue the call (src/http/calls.ts does).
  | {
      ok: false;
      refusal: Refusal;
      input: UpstreamInput;
      findings?: readonly GuardFinding[];
      reply?: undefined;
    }
  | {
      ok: false;
      refusal: Refusal;
      findings?: readonly GuardFinding[];
      reply?: UpstreamReply;
      input?: undefined;
      /** The client capabilities an MCP upstream said the call needs (`-32021`), if it said. */
      missing?: Record<string, unknown>;
    };
