/**
 * The policy file's schema, its validation against the contracts at load, and the rules
 * the fence reads from it (limits per tenant, per-target rules, the caller's tools).
 */
import * as v from "valibot";
import {
  type ApprovalRule,
  ApprovalRuleSchema,
  decidersProblem,
  patternProblem,
  ruleArg,
} from "./approval.ts";
import type { ToolContract } from "./contract.ts";
import { ResultRulesSchema, resultRulesProblems } from "./guardrails/rules.ts";
import { LimitOverrideSchema, type RunLimits, tighten } from "./limits.ts";
import { OperatorsSchema } from "./people.ts";
import { principalAuthProblems } from "./principal-auth.ts";
import { err, ok, type Result } from "./result.ts";
import { upstreamProblems } from "./upstream-shape.ts";
import { entriesOf } from "./validate.ts";

/** The default bound on the bytes of one upstream answer (policy `upstream_answer_max_bytes`). */
export const DEFAULT_ANSWER_MAX_BYTES = 1_048_576;

/** The most a policy may raise that bound to: an isolate holds the whole answer in memory. */
export const MAX_ANSWER_MAX_BYTES = 16 * 1_048_576;

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * A per-target cap: at most `max` calls of the tool per value of argument `arg`, counted
 * per run, or across every run of the tenant when `scope` is `tenant`.
 */
const TargetRuleSchema = v.strictObject({
  arg: v.pipe(v.string(), v.minLength(1)),
  max: PositiveInt,
  scope: v.picklist(["run", "tenant"]),
});

/** The rules of one tool, under `tools.<name>` in the policy. */
const ToolRuleSchema = v.strictObject({
  max_calls_per_run: v.optional(Count),
  per_target: v.optional(TargetRuleSchema),
  /** Rules that ask a person before a call of the tool may run; the first match asks. */
  approval: v.optional(v.array(ApprovalRuleSchema)),
  /** Result rules of the tool, over its contract's (docs/result-rules.md). */
  results: v.optional(ResultRulesSchema),
});

/** The brakes of every run, from `contracts/policy.json`. */
export const PolicySchema = v.strictObject({
  allowed_tools: v.pipe(v.array(v.string()), v.minLength(1)),
  max_mutations: Count,
  max_paid_calls: Count,
  call_timeout_cap_ms: PositiveInt,
  run_deadline_ms: PositiveInt,
  idempotency_retention_ms: v.pipe(PositiveInt, v.minValue(60_000)),
  /** The most bytes of one upstream answer the fence reads; past it the call is settled unread. */
  upstream_answer_max_bytes: v.optional(
    v.pipe(PositiveInt, v.minValue(1_024), v.maxValue(MAX_ANSWER_MAX_BYTES)),
    DEFAULT_ANSWER_MAX_BYTES,
  ),
  /** Calls to an MCP tool whose server no longer lists the pinned schema: refused or made. */
  on_drift: v.optional(v.picklist(["block", "allow"]), "block"),
  /**
   * What the audit keeps of a body the fence could not read as a call: only its keyed digest
   * (the default: a body that cannot be parsed cannot have its sensitive values picked out),
   * or, when a policy says `keep`, the body as received.
   */
  audit_unparsed: v.optional(v.picklist(["keep", "digest"]), "digest"),
  /** How long an approval waits for an operator, and how long a grant then stays usable. */
  approval_ttl_ms: v.optional(v.pipe(PositiveInt, v.minValue(1_000)), 3_600_000),
  /** Most runs one caller key may have open at once (not halted, not past their deadline). */
  max_open_runs_per_key: v.optional(PositiveInt, 100),
  /** Most runs a tenant may have open at once, whichever keys opened them. */
  max_open_runs_per_tenant: v.optional(PositiveInt, 1_000),
  /** Most approvals of one run that may wait for a person at once. */
  max_pending_approvals_per_run: v.optional(PositiveInt, 5),
  /** Most approvals of one tenant that may wait for a person at once. */
  max_pending_approvals_per_tenant: v.optional(PositiveInt, 50),
  /** Most approval pages the webhook sends per tenant in a minute; the rest wait in the list. */
  approval_pages_per_minute: v.optional(PositiveInt, 10),
  /**
   * Audit entries a run keeps in full; a refusal past them is counted per reason instead, but
   * the first of each reason and tool (src/ledger/run/refusal-keep.ts).
   */
  max_audit_entries_per_run: v.optional(v.pipe(PositiveInt, v.minValue(100)), 1_000),
  /** Result rules of every tool, over the built-in defaults (docs/result-rules.md). */
  results: v.optional(ResultRulesSchema),
  tools: v.optional(v.record(v.string(), ToolRuleSchema), {}),
  tenants: v.optional(
    v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/)), LimitOverrideSchema),
    {},
  ),
  /** Which people signed in through an identity provider operate, and for which tenant. */
  operators: v.optional(OperatorsSchema),
});

/** A validated policy. */
export type Policy = v.InferOutput<typeof PolicySchema>;

/** A validated per-target rule. */
export type TargetRule = v.InferOutput<typeof TargetRuleSchema>;

/** The contracts and policy a worker runs with, checked together. */
export interface Fence {
  /** Validated policy. */
  policy: Policy;
  /** Contracts by exact tool name. */
  tools: ReadonlyMap<string, ToolContract>;
  /** Limits of a run of a tenant with no block of its own. */
  limits: RunLimits;
  /** Limits of a run of each tenant named under `tenants`, already tightened. */
  tenantLimits: ReadonlyMap<string, RunLimits>;
}

/**
 * Check the policy against its schema and the contracts it names. Returns every
 * problem, each with the path of the offending value, so a reviewer can fix the file
 * in one pass.
 */
export function loadFence(
  source: unknown,
  contracts: readonly ToolContract[],
): Result<Fence, string[]> {
  const parsed = v.safeParse(PolicySchema, source, { abortEarly: false });
  if (!parsed.success) {
    return err(parsed.issues.map((i) => `policy.${v.getDotPath(i) ?? ""}: ${i.message}`));
  }
  const policy = parsed.output;
  const tools = new Map<string, ToolContract>();
  const problems: string[] = [];
  for (const c of contracts) {
    if (tools.has(c.name)) problems.push(`contracts: tool ${c.name} is declared twice`);
    if (c.effect === "mutate" && c.cacheTtlSeconds !== 0) {
      problems.push(`contracts.${c.name}.cacheTtlSeconds: a mutation is never cached`);
    }
    const bound = c.maxAnswerBytes;
    if (bound !== undefined && !(Number.isSafeInteger(bound) && bound >= 1)) {
      problems.push(`contracts.${c.name}.maxAnswerBytes: a whole number of bytes, at least 1`);
    }
    const fields = entriesOf(c.input) ?? {};
    for (const name of c.sensitive ?? []) {
      if (!Object.hasOwn(fields, name)) {
        problems.push(`contracts.${c.name}.sensitive: no argument named "${name}"`);
      }
    }
    problems.push(...resultRulesProblems(c.results, `contracts.${c.name}.results`));
    problems.push(...upstreamProblems(c.upstream, `contracts.${c.name}.upstream`));
    problems.push(...principalAuthProblems(c));
    tools.set(c.name, c);
  }
  policy.allowed_tools.forEach((name, i) => {
    if (!tools.has(name)) problems.push(`policy.allowed_tools.${i}: no contract named "${name}"`);
  });
  problems.push(...toolRuleProblems(policy, tools));
  // A key dropped while its run still admits calls would let the same intent be charged and
  // sent again inside one live run; a run's deadline is never later than the policy's.
  if (policy.idempotency_retention_ms < policy.run_deadline_ms) {
    problems.push(
      `policy.idempotency_retention_ms: ${policy.idempotency_retention_ms} ms is shorter than run_deadline_ms (${policy.run_deadline_ms} ms); a run's keys must outlive the run`,
    );
  }
  const limits = baseLimits(policy);
  const tenantLimits = new Map<string, RunLimits>();
  for (const [tenant, override] of Object.entries(policy.tenants)) {
    const tightened = tighten(limits, override, policy.allowed_tools);
    if (tightened.ok) tenantLimits.set(tenant, tightened.value);
    else {
      const { field, detail } = tightened.error;
      problems.push(`policy.tenants.${tenant}.${field}: loosens the policy (${detail})`);
    }
  }
  return problems.length > 0 ? err(problems) : ok({ policy, tools, limits, tenantLimits });
}

/** The limits a run of `tenant` starts with. */
export function limitsFor(fence: Fence, tenant: string): RunLimits {
  return fence.tenantLimits.get(tenant) ?? fence.limits;
}

/** The per-target rule binding `tool`, if the policy has one. */
export function targetRuleOf(fence: Fence, tool: string): TargetRule | null {
  return fence.policy.tools[tool]?.per_target ?? null;
}

/** The approval rules of `tool`, in the order they are tried. */
export function approvalRulesOf(fence: Fence, tool: string): readonly ApprovalRule[] {
  return fence.policy.tools[tool]?.approval ?? [];
}

/** The value a call's per-target rule counts by, read from its validated arguments. */
export function targetOf(rule: TargetRule | null, args: unknown): string | null {
  if (rule === null || typeof args !== "object" || args === null) return null;
  const value = (args as Record<string, unknown>)[rule.arg];
  // An absent optional argument is a target of its own: the empty one.
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

function baseLimits(policy: Policy): RunLimits {
  const caps: Record<string, number> = {};
  for (const [tool, rule] of Object.entries(policy.tools)) {
    if (rule.max_calls_per_run !== undefined) caps[tool] = rule.max_calls_per_run;
  }
  return {
    allowed_tools: null,
    max_mutations: policy.max_mutations,
    max_paid_calls: policy.max_paid_calls,
    deadline_ms: policy.run_deadline_ms,
    tool_caps: caps,
  };
}

function toolRuleProblems(policy: Policy, tools: ReadonlyMap<string, ToolContract>): string[] {
  const problems: string[] = [];
  for (const [name, rule] of Object.entries(policy.tools)) {
    const contract = tools.get(name);
    if (contract === undefined) {
      problems.push(`policy.tools.${name}: no contract named "${name}"`);
      continue;
    }
    const args = entriesOf(contract.input) ?? {};
    const arg = rule.per_target?.arg;
    if (arg !== undefined && !Object.hasOwn(args, arg)) {
      problems.push(`policy.tools.${name}.per_target.arg: ${name} has no argument "${arg}"`);
    }
    // A target is stored and named in clear (its claim, the refusal's detail): never a secret.
    if (arg !== undefined && (contract.sensitive ?? []).includes(arg)) {
      problems.push(`policy.tools.${name}.per_target.arg: "${arg}" is marked sensitive`);
    }
    const rules = rule.approval ?? [];
    problems.push(...approvalProblems(name, rules, args));
    rules.forEach((r, i) => {
      // Named people decide through the console's sign-in, which `operators` turns on.
      if (r.approvers !== "operators" && policy.operators === undefined) {
        const at = `policy.tools.${name}.approval.${i}.approvers`;
        problems.push(`${at}: names people, but the policy names no operators to sign in`);
      }
    });
  }
  return problems;
}

function approvalProblems(
  tool: string,
  rules: readonly ApprovalRule[],
  args: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  rules.forEach((rule, i) => {
    const at = `policy.tools.${tool}.approval.${i}`;
    if (names.has(rule.name)) problems.push(`${at}.name: "${rule.name}" is used twice`);
    names.add(rule.name);
    const arg = ruleArg(rule);
    if (arg !== null && !Object.hasOwn(args, arg)) {
      problems.push(`${at}.arg: ${tool} has no argument "${arg}"`);
    }
    const pattern = patternProblem(rule);
    if (pattern !== null) problems.push(`${at}.matches: ${pattern}`);
    const deciders = decidersProblem(rule);
    if (deciders !== null) problems.push(`${at}.approvers: ${deciders}`);
  });
  return problems;
}

/** The contracts a caller may use: allowed by the policy and, if it has a subset, by its key. */
export function toolsFor(fence: Fence, callerTools: readonly string[] | null): ToolContract[] {
  return [...fence.tools.values()].filter(
    (t) => fence.policy.allowed_tools.includes(t.name) && (callerTools?.includes(t.name) ?? true),
  );
}
