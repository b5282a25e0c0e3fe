/**
 * What the outcome of a call keeps of its upstream's answer when that answer (or its silence)
 * failed or escalated the call: the reply excerpted and redacted (src/core/upstream-excerpt.ts),
 * as JSON for the outcome's audit entry. The raw reply goes no further than here.
 */
import type { GatedCall } from "../core/gate.ts";
import { resultRulesOf } from "../core/guardrails/of-fence.ts";
import type { Fence } from "../core/policy.ts";
import type { Digest } from "../core/redact.ts";
import { upstreamExcerpt } from "../core/upstream-excerpt.ts";
import type { Execution } from "../execute/execution.ts";

/** The outcome's `upstream` member: set only when the execution carries a reply. */
export function keptUpstream(
  execution: Execution,
  call: GatedCall,
  fence: Fence,
  digest: Digest,
): { upstream?: string } {
  if (execution.ok || execution.reply === undefined) return {};
  const scope = {
    contract: call.contract,
    args: call.args,
    rules: resultRulesOf(fence, call.contract),
    digest,
  };
  return { upstream: JSON.stringify(upstreamExcerpt(execution.reply, scope)) };
}
