/**
 * `npm run policy -- check` in the core: the policy text checked with the contracts, and
 * the reviewer's table of every tool's brakes.
 */
import { describeDeciders, describeRule } from "./approval.ts";
import { catalogue } from "./catalogue.ts";
import type { ToolContract } from "./contract.ts";
import { resultRulesLines } from "./guardrails/rules-report.ts";
import { parseStrictJson } from "./json.ts";
import type { RunLimits } from "./limits.ts";
import { type Fence, loadFence } from "./policy.ts";
import { err, type Result } from "./result.ts";

/** A policy file nests a few levels; anything deeper is a mistake. */
const POLICY_DEPTH = 16;

/**
 * Check a policy file's text with the contracts, as the worker does at start and a
 * little more: duplicate keys are refused (JSON.parse would keep the last one silently,
 * so a reviewer could read one value and the worker run another), and every contract's
 * schema must publish as JSON Schema.
 */
export function checkPolicyText(
  text: string,
  contracts: readonly ToolContract[],
): Result<Fence, string[]> {
  const parsed = parseStrictJson(text, { maxDepth: POLICY_DEPTH });
  if (!parsed.ok) return err([`policy: ${parsed.error.detail}`]);
  const problems: string[] = [];
  for (const c of contracts) {
    try {
      catalogue([c], "json");
    } catch (e) {
      problems.push(
        `contracts.${c.name}: its schema cannot be published (${(e as Error).message})`,
      );
    }
  }
  const fence = loadFence(parsed.value, contracts);
  if (!fence.ok) return err([...fence.error, ...problems]);
  return problems.length > 0 ? err(problems) : fence;
}

/** A reviewer's view of the fence: every tool with its effect, caps, timeout and cache TTL. */
export function policyReport(fence: Fence): string {
  const { policy } = fence;
  const header = [
    "tool",
    "effect",
    "paid",
    "allowed",
    "max/run",
    "per target",
    "timeout ms",
    "cache ttl s",
  ];
  const rows = [...fence.tools.values()].map((c) => {
    const rule = policy.tools[c.name];
    const target = rule?.per_target;
    const timeout = Math.min(c.timeoutMs, policy.call_timeout_cap_ms);
    return [
      c.name,
      c.effect,
      c.paid ? "yes" : "no",
      policy.allowed_tools.includes(c.name) ? "yes" : "no",
      String(rule?.max_calls_per_run ?? "-"),
      target === undefined ? "-" : `${target.max} per ${target.arg} (${target.scope})`,
      timeout < c.timeoutMs ? `${timeout} (capped)` : String(timeout),
      c.effect === "read" && c.cacheTtlSeconds > 0 ? String(c.cacheTtlSeconds) : "-",
    ];
  });
  const lines = table([header, ...rows]);
  lines.push("", `run: ${limitsLine(fence.limits)}`);
  lines.push(
    `call timeout cap ${policy.call_timeout_cap_ms} ms; idempotency keys kept ${policy.idempotency_retention_ms} ms`,
  );
  for (const [tenant, limits] of fence.tenantLimits)
    lines.push(`tenant ${tenant}: ${limitsLine(limits)}`);
  lines.push(
    `open runs at once: ${policy.max_open_runs_per_key} per key, ${policy.max_open_runs_per_tenant} per tenant`,
  );
  lines.push(
    ...approvalLines(fence),
    ...resultRulesLines(fence),
    ...auditLines(fence),
    ...operatorLines(fence),
  );
  return lines.join("\n");
}

/** Which people signed in through an identity provider operate, and for which tenant. */
function operatorLines(fence: Fence): string[] {
  const ops = fence.policy.operators;
  if (ops === undefined) return ["", "operators: none named; no person signs in to the console"];
  const claim =
    ops.claim === undefined ? [] : [`  whoever's ${ops.claim.name} claim holds ${ops.claim.value}`];
  const tenant =
    ops.tenant_claim === undefined
      ? `tenant ${ops.tenant}`
      : `tenant from the ${ops.tenant_claim} claim, else ${ops.tenant}`;
  return ["", `operators (${tenant}):`, ...ops.allow.map((who) => `  ${who}`), ...claim];
}

/** What the audit keeps in place of sensitive arguments and of unreadable bodies. */
function auditLines(fence: Fence): string[] {
  const marked = [...fence.tools.values()]
    .filter((c) => (c.sensitive ?? []).length > 0)
    .map((c) => `  ${c.name}: ${(c.sensitive ?? []).join(", ")}`);
  const unparsed =
    fence.policy.audit_unparsed === "digest"
      ? "a body that cannot be read as a call is kept as its keyed digest only"
      : "a body that cannot be read as a call is kept as received";
  return [
    "",
    marked.length === 0
      ? "sensitive arguments: none marked"
      : "sensitive arguments (the audit keeps hmac-sha256:<hex>, never the value):",
    ...marked,
    `audit_unparsed: ${fence.policy.audit_unparsed} (${unparsed})`,
    `audit entries kept in full per run: ${fence.policy.max_audit_entries_per_run} (a refusal past them is counted per reason, but the first of each reason and tool)`,
  ];
}

/** Every approval rule, or a line saying no call needs a person. */
function approvalLines(fence: Fence): string[] {
  const rules = Object.entries(fence.policy.tools).flatMap(([tool, rule]) =>
    (rule.approval ?? []).map(
      (r) =>
        `  ${tool}: ${r.name} (${describeRule(r)}; ${describeDeciders(r)})${r.deadline === undefined ? "" : `, decide within ${r.deadline}`}`,
    ),
  );
  const { policy } = fence;
  const ttl = `approvals wait and grants last ${policy.approval_ttl_ms} ms`;
  const caps = `pending approvals at once: ${policy.max_pending_approvals_per_run} per run, ${policy.max_pending_approvals_per_tenant} per tenant; webhook pages ${policy.approval_pages_per_minute} per tenant per minute`;
  return rules.length === 0
    ? ["", "approval: no rule; no call needs a person"]
    : ["", `approval rules (the first match asks a person; ${ttl}):`, ...rules, caps];
}

function limitsLine(l: RunLimits): string {
  const caps = Object.entries(l.tool_caps).map(([t, n]) => `${t} ${n}`);
  return [
    `max_mutations ${l.max_mutations}`,
    `max_paid_calls ${l.max_paid_calls}`,
    `deadline ${l.deadline_ms} ms`,
    `tools ${l.allowed_tools?.join(", ") ?? "all the policy allows"}`,
    ...(caps.length > 0 ? [`per-tool caps: ${caps.join(", ")}`] : []),
  ].join("; ");
}

function table(rows: readonly string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: readonly string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const [head, ...body] = rows;
  return [line(head ?? []), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
}
