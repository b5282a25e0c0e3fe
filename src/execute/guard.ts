/**
 * An execution through its tool's result rules: a result that passed its output contract is
 * changed, marked or withheld before it is cached, kept for replay, audited or answered.
 */
import type { ToolContract } from "../core/contract.ts";
import type { ResolvedRules } from "../core/guardrails/rules.ts";
import { guardResult } from "../core/guardrails/scan.ts";
import { refuse } from "../core/reasons.ts";
import { guardedRefusal } from "../core/upstream-excerpt.ts";
import type { Execution } from "./execution.ts";

/**
 * `execution` after `rules`; a refusal passes unchanged, but one that quotes the upstream's
 * answer (its output outside the contract) has what it quotes searched too.
 */
export function guarded(
  execution: Execution,
  contract: ToolContract,
  rules: ResolvedRules,
): Execution {
  if (!execution.ok) {
    if (execution.refusal.reason !== "output_contract_violation") return execution;
    const { refusal, findings } = guardedRefusal(execution.refusal, rules);
    return findings.length === 0 ? execution : { ...execution, refusal, findings };
  }
  const out = guardResult(execution.result, rules);
  if (!out.blocked) {
    return out.findings.length === 0
      ? execution
      : { ok: true, result: out.result, findings: out.findings };
  }
  const what = out.findings.map((f) => `${f.rule} ${f.what} at ${f.path}`).join("; ");
  const acted =
    contract.effect === "mutate"
      ? " The tool was reached and acted: the call is settled as done, and a retry with the same key replays this answer."
      : "";
  const detail = `${contract.name} answered, and a result rule withheld the answer (${what}).${acted}`;
  const issues = out.findings.map((f) => ({
    path: f.path,
    message: `result rule ${f.rule} found ${f.what} at offset ${f.offset}`,
    expected: null,
    received: "withheld",
  }));
  return { ok: false, refusal: refuse("result_blocked", detail, issues), findings: out.findings };
}
