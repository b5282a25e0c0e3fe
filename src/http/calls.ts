/**
 * `POST /v1/runs/{run_id}/calls` and `decide`, the one pipeline every edge uses: gate, cache
 * route, target claim, ledger, tool, settle.
 */
import { asksNoCache, type CacheRoute, routeRead } from "../cache/read-through.ts";
import { tiersOf } from "../cache/tiers.ts";
import type { Bearer } from "../connections/for-call.ts";
import { mediaKind } from "../core/body.ts";
import { sha256Hex } from "../core/canonical.ts";
import type { GatedCall } from "../core/gate.ts";
import { gate } from "../core/gate.ts";
import { resultRulesOf, resultRulesVersion } from "../core/guardrails/of-fence.ts";
import { targetOf, targetRuleOf } from "../core/policy.ts";
import { callsAsPrincipal } from "../core/principal-auth.ts";
import { DECISION_TABLE, type Refusal, refuse } from "../core/reasons.ts";
import type { Digest } from "../core/redact.ts";
import { err, type Result } from "../core/result.ts";
import { configured } from "../execute/configured.ts";
import { cacheEpochOf } from "../execute/drift.ts";
import { type Execution, execute } from "../execute/execute.ts";
import type { InputRelay, UpstreamNotice } from "../execute/mcp.ts";
import { pinnedNow } from "../execute/pin-check.ts";
import type {
  BudgetView,
  CacheStatus,
  LedgerProposal,
  Outcome,
  Rejection,
  RunRef,
} from "../ledger/protocol.ts";
import { mutationKey } from "../ledger/run/keys.ts";
import {
  type CallStart,
  inSpan,
  noteCall,
  recordApprovalDecided,
  traceCall,
  tracedLedger,
} from "../telemetry/index.ts";
import { failed, keptForReplay, noRetryLeft, settledOnce } from "./after-upstream.ts";
import { awaitApproval, noteConsumed } from "./approval-answer.ts";
import { asPrincipal } from "./as-principal.ts";
import { claimWhileDeciding, holdTarget } from "./claims.ts";
import type { AppContext } from "./context.ts";
import { type Continuation, type Decision, restAnswer } from "./decision.ts";
import { auditArgsOf, evidenceOf, keptText } from "./evidence.ts";
import { guardOf } from "./guard-answer.ts";
import { LEASE_MARGIN_MS, MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./limits.ts";
import { problemDetails } from "./problem.ts";
import { readBody } from "./read-body.ts";
import { redactionDigest } from "./redaction.ts";
import { ledgerOf } from "./runs.ts";
import { keptUpstream } from "./upstream-reply.ts";

/** `POST /v1/runs/{run_id}/calls`: one proposed tool call through the whole fence. */
export async function proposeCall(c: AppContext, ref: RunRef): Promise<Response> {
  const contentType = c.req.header("Content-Type") ?? null;
  const headerKey = c.req.header("Idempotency-Key") ?? null;
  // The media type and charset decide whether the body is read at all (RFC 9110 §15.5.16).
  const media = mediaKind(contentType);
  const body = media.ok ? await readBody(c.req.raw, MAX_BODY_BYTES) : media;
  return restAnswer(await decide(c, ref, { contentType, body, headerKey, form: null }));
}

/** A proposal as an edge received it, before the gate. */
export interface Proposal {
  /** Content-Type of the call's text. */
  contentType: string | null;
  /** The call's text, or why it could not be read. */
  body: Result<string, Refusal>;
  /** A key sent beside the body (the `Idempotency-Key` header), or null. */
  headerKey: string | null;
  /** The form to record when an edge other than REST made the text (`mcp`), else null. */
  form: "mcp" | null;
  /**
   * What the client sent, when an edge made `body` out of another protocol's message (the
   * JSON-RPC request of an MCP `tools/call`): the audit keeps these bytes, not the text made.
   */
  received?: string;
  /** The client's trace context and JSON-RPC request, when not REST's headers (MCP `_meta`). */
  trace?: Pick<CallStart, "carrier" | "mcp">;
  /** Where an MCP upstream's progress and log messages go while the tool runs (MCP edge). */
  notify?: (notice: UpstreamNotice) => void;
  /** Set for an MCP client an upstream may ask for input (MCP edge, 2026-07-28). */
  input?: InputRelay;
  /** Set when the call continues an admitted one with its client's answers to a round. */
  continues?: Continuation;
}

/** Most input rounds of one call; an upstream that asks again after the last fails the call. */
export const MAX_INPUT_ROUNDS = 8;

/** Longest a call waits for its client's answers to one round (within the run's deadline). */
export const INPUT_WAIT_MS = 600_000;

/** `decide` inside the call's span (src/telemetry/): its steps are child spans. */
export function decide(c: AppContext, ref: RunRef, input: Proposal): Promise<Decision> {
  const headers = {
    traceparent: c.req.header("traceparent"),
    tracestate: c.req.header("tracestate"),
  };
  const start: CallStart = {
    vars: c.env,
    carrier: input.trace?.carrier ?? headers,
    mcp: input.trace?.mcp ?? null,
    tenant: ref.tenant,
    runId: ref.runId,
    principal: c.get("principal").keyId ?? "dev",
    defer: (work) => c.executionCtx.waitUntil(work),
  };
  return traceCall(start, () => decideCall(c, ref, input));
}

/**
 * The one pipeline every edge uses: gate, cache route, target claim, ledger, tool, settle.
 * The answer is data; each edge renders it in its own terms (REST: restAnswer; MCP: a tool
 * result).
 */
async function decideCall(c: AppContext, ref: RunRef, input: Proposal): Promise<Decision> {
  const started = Date.now();
  const callId = crypto.randomUUID();
  const ledger = tracedLedger(ledgerOf(c.env, ref));
  const { contentType, body, headerKey, form: edgeForm } = input;
  const text = body.ok ? body.value : "";
  const digest = redactionDigest(c.env, c.req.raw);
  const gated = body.ok
    ? await inSpan("toolfence.gate", () =>
        gate(
          c.get("fence"),
          { contentType, text, headerKey, callerTools: c.get("principal").tools, form: edgeForm },
          { maxDepth: MAX_JSON_DEPTH },
          digest,
        ),
      )
    : {
        ok: false as const,
        error: { refusal: body.error, tool: null, form: edgeForm, key: headerKey },
      };
  const kept = keptText(c.get("fence"), input.received ?? text, gated, digest);
  const evidence = evidenceOf(contentType, kept);
  // A call the gate passed to a tool whose upstream is not configured is refused like its own.
  const ready = gated.ok ? configured(gated.value, c.env) : gated;
  // A tool called as the principal needs the caller's live connection (no other pays for it).
  const principal =
    ready.ok && callsAsPrincipal(ready.value.contract)
      ? await asPrincipal(c, ref, { ...ready.value, contract: ready.value.contract })
      : null;
  const reachable = principal?.ok === false ? err(principal.failure) : ready;
  const bearer = principal?.ok ? principal.bearer : undefined;
  // An MCP tool no longer listed as pinned is refused before the cache is consulted; its
  // cache epoch is read beside the pin check, not after it (two KV reads, one wait).
  const onDrift = c.get("fence").policy.on_drift;
  const [checked, epoch] = reachable.ok
    ? await Promise.all([
        pinnedNow(reachable.value, c.env, { ...ref, onDrift, bearer }),
        cacheEpochOf(c.env, reachable.value.contract),
      ])
    : [reachable, null];
  if (checked.ok) noteCall(checked.value.contract.name, checked.value.form);
  else noteCall(checked.error.tool, checked.error.form);
  const other = checked.ok ? otherCall(checked.value, input.continues) : null;
  if (checked.ok && other !== null) {
    const { contract, form, key } = checked.value;
    const rejection = { callId, tool: contract.name, form, key, refusal: other, evidence };
    return refusedRetry(ledger, ref, rejection);
  }
  if (!checked.ok) {
    const { refusal, tool, form, key } = checked.error;
    const recorded = await ledger.record(ref, { callId, tool, form, key, refusal, evidence });
    const extra = principal?.ok === false ? principal.extra : {};
    return refused(recorded.refusal, { call_id: callId, budget: recorded.budget, ...extra });
  }
  // The call's entries name the upstream identity a call as the principal used.
  const callRef = principal?.ok ? principal.ref : ref;
  const call = checked.value;
  // The arguments' JSON, made once: the cache key's and the ledger's.
  const args = JSON.stringify(call.args);
  // A continued call's answer depends on its client's input: never cached, nor served.
  const route =
    input.continues !== undefined
      ? UNCACHED
      : await inSpan("toolfence.cache.lookup", () =>
          routeRead({
            tiers: tiersOf(c.env, ref.tenant),
            contract: call.contract,
            args,
            tenant: ref.tenant,
            noCache: asksNoCache(c.req.header("Cache-Control")),
            epoch,
            rules: resultRulesVersion(c.get("fence"), call.contract),
            defer: (work) => c.executionCtx.waitUntil(work),
          }),
        );
  const written = { args, evidence, auditArgs: auditArgsOf(call, digest) };
  // A continued call is the one admitted: its entries, charge and key are that call's.
  const proposal = proposalOf(c, call, input.continues?.callId ?? callId, written);
  if (route.kind === "served") return served(ledger, callRef, proposal, route);
  const leader = route.kind === "leader" ? route.leader : null;
  try {
    const { notify, input: relay, continues } = input;
    const made = { started, ledger, digest, bearer, notify, input: relay, continues };
    if (continues !== undefined) {
      return await continueCall(c, callRef, call, proposal, { ...made, continues });
    }
    return await admitAndRun(c, callRef, call, proposal, route, made);
  } finally {
    // Joiners must never wait on a leader that was refused or threw before landing.
    leader?.land(null);
  }
}

type Ledger = ReturnType<typeof ledgerOf>;

/** What the call's decision already made, for the steps after the ledger's. */
interface Made {
  /** When the call was received. */
  started: number;
  /** Its run's ledger. */
  ledger: Ledger;
  /** Its keyed digest. */
  digest: Digest;
  /** The token of a call made as the principal. */
  bearer: Bearer | undefined;
  /** Where the tool's notifications go. */
  notify: Proposal["notify"];
  /** What the client may be asked for input. */
  input: Proposal["input"];
  /** The admitted call this one continues, if any. */
  continues: Proposal["continues"];
}

/**
 * Null when a retry carrying a round's state is the call that state continues; else why not.
 * The state was sealed for this run and principal; the call it names must be this one.
 */
function otherCall(call: GatedCall, continues: Continuation | undefined): Refusal | null {
  if (continues === undefined || call.fingerprint === continues.fingerprint) return null;
  const detail =
    "The request state continues another call: a retry with the client's input must send the same tool and arguments as the call that asked for it.";
  return refuse("malformed_payload", detail);
}

/**
 * A retry with the client's answers to a round of an admitted call: the ledger takes that
 * round's wait (once: a replayed or superseded state is refused there), nothing is charged or
 * audited anew, and the tool runs again with the answers; its outcome settles the one call.
 */
async function continueCall(
  c: AppContext,
  ref: RunRef,
  call: GatedCall,
  proposal: LedgerProposal,
  made: Made & { continues: Continuation },
): Promise<Decision> {
  const { callId, round } = made.continues;
  const resumed = await made.ledger.resumeInput(ref, { callId, round, leaseMs: proposal.leaseMs });
  if (resumed.refusal !== null) {
    const { tool, form, key, evidence } = proposal;
    const rejection = { callId: crypto.randomUUID(), tool, form, key, evidence };
    return refusedRetry(made.ledger, ref, { ...rejection, refusal: resumed.refusal });
  }
  return runAndSettle(c, ref, call, proposal, UNCACHED, made, resumed);
}

/** The route of a call the cache must not answer or keep. */
const UNCACHED = { kind: "uncached" as const, key: null, cache: null };

/**
 * A retry refused before it continued its call: recorded under a call id of its own, so the
 * admitted call's entries stay that call's.
 */
async function refusedRetry(ledger: Ledger, ref: RunRef, r: Rejection): Promise<Decision> {
  const recorded = await ledger.record(ref, r);
  return refused(recorded.refusal, { call_id: r.callId, budget: recorded.budget });
}

/** A call with no backend query of its own: free, recorded with its outcome in one step. */
async function served(
  ledger: Ledger,
  ref: RunRef,
  proposal: LedgerProposal,
  route: Extract<CacheRoute, { kind: "served" }>,
): Promise<Decision> {
  const outcome = outcomeOf(route.execution, proposal.callId, "cached", route.cache);
  const answer = await ledger.propose(ref, {
    ...proposal,
    paid: false,
    outcome: forLedger(outcome, proposal),
  });
  if (answer.kind === "refuse") {
    return refused(answer.refusal, { call_id: proposal.callId, budget: answer.budget });
  }
  return respond(outcome, answer.budget, route.key);
}

/**
 * A call that reaches the tool: its tenant-wide target claimed (if a rule needs one; see
 * TargetClaims object) while the run decides, charged, run outside the ledger, then settled.
 */
async function admitAndRun(
  c: AppContext,
  ref: RunRef,
  call: GatedCall,
  proposal: LedgerProposal,
  route: Exclude<CacheRoute, { kind: "served" }>,
  made: Made,
): Promise<Decision> {
  const { callId } = proposal;
  const { started, ledger } = made;
  const rule = targetRuleOf(c.get("fence"), call.contract.name);
  const claiming = inSpan("toolfence.claim", async () =>
    holdTarget(c.env, ref, call, rule, proposal.target, callId, proposal.leaseMs),
  );
  // A tool the fence answers itself has no side effect: its outcome is known before the
  // ledger decides, so one ledger step both decides and records it. That step cannot be taken
  // back, so such a tool's claim is settled before it.
  const inline = call.contract.upstream.kind === "inline";
  const claimedFirst = inline ? await claiming : null;
  if (claimedFirst !== null && claimedFirst.refusal !== null) {
    const { refusal } = claimedFirst;
    const { tool, form, key, evidence } = proposal;
    const recorded = await ledger.record(ref, { callId, tool, form, key, refusal, evidence });
    return refused(recorded.refusal, { call_id: callId, budget: recorded.budget });
  }
  const known = inline
    ? outcomeOf(await run(c, ref, call, Number.POSITIVE_INFINITY), callId, "applied", route.cache)
    : null;
  const both = await claimWhileDeciding(
    ledger,
    ref,
    claimedFirst ?? claiming,
    ledger.propose(
      ref,
      known === null ? proposal : { ...proposal, outcome: forLedger(known, proposal) },
    ),
    { proposal, started },
  );
  if ("withdrawn" in both) {
    return refused(both.withdrawn, { call_id: callId, budget: both.budget });
  }
  const { hold, answer } = both;
  if (answer.kind === "refuse" || answer.kind === "approval") await hold.fresh?.release();
  if (answer.kind === "approval") return awaitApproval(c, ref, proposal, answer);
  if (answer.kind === "refuse") {
    // A pending approval this proposal found past its deadline is decided now: `expired`.
    if (answer.expiredAfterMs !== undefined)
      recordApprovalDecided(c.env, "expired", answer.expiredAfterMs);
    const approval = answer.approvalId === undefined ? {} : { approval_id: answer.approvalId };
    const edited =
      answer.editedArgs === undefined ? {} : { edited_args: JSON.parse(answer.editedArgs) };
    return refused(answer.refusal, {
      call_id: callId,
      budget: answer.budget,
      ...approval,
      ...edited,
    });
  }
  if (answer.kind === "replay") return replayed(answer.status, answer.body, answer.budget);
  if (answer.approvalId !== null) noteConsumed(c, ref, answer.approvalId);
  if (known !== null) return respond(known, answer.budget, route.key);
  return runAndSettle(c, ref, call, proposal, route, made, answer);
}

/**
 * Run the admitted call's tool and settle its outcome, or, when its MCP upstream asks the
 * client for input, hold the call open for the next round instead (within the rounds' bound).
 */
async function runAndSettle(
  c: AppContext,
  ref: RunRef,
  call: GatedCall,
  proposal: LedgerProposal,
  route: Exclude<CacheRoute, { kind: "served" }>,
  made: Made,
  admitted: { deadlineAt: number; budget: BudgetView },
): Promise<Decision> {
  const { callId } = proposal;
  const { started, ledger, digest } = made;
  const relay = { bearer: made.bearer, notify: made.notify, input: made.input };
  const asked = await run(c, ref, call, admitted.deadlineAt, relay);
  const waiting = await waitForInput(ledger, ref, proposal, asked, made, admitted);
  if (waiting !== null && "status" in waiting) return waiting;
  const ran = waiting ?? asked;
  const execution = noRetryLeft(ran, proposal, admitted);
  const upstream = keptUpstream(execution, call, c.get("fence"), digest);
  const outcome = keptForReplay(
    { ...outcomeOf(execution, callId, "applied", route.cache), ...upstream },
    proposal,
  );
  const settle = (o: Outcome) =>
    ledger.settle(ref, {
      callId,
      key: mutationKey(proposal),
      effect: call.contract.effect,
      outcome: forLedger(o, proposal),
      durationMs: Date.now() - started,
    });
  const settled = await settledOnce(settle, outcome, proposal);
  // A read that comes back after its run was halted is neither answered nor cached: the halt
  // reaches it as if it had been aborted. A mutation's outcome happened, and is answered.
  const withheld = settled.afterHalt && call.contract.effect === "read";
  if (route.kind === "leader") route.leader.land(withheld ? null : execution);
  if (withheld) {
    const detail = "The run was halted while this read ran; its result is not answered.";
    return refused(refuse("run_halted", detail), { call_id: callId, budget: settled.budget });
  }
  const decision = respond(settled.outcome, settled.budget, route.key);
  const missing = !execution.ok && "missing" in execution ? execution.missing : undefined;
  return missing === undefined ? decision : { ...decision, missingCapabilities: missing };
}

/**
 * When the tool asked its client for input: the decision that hands the request on, with the
 * call held open for the next round; or, past the rounds' bound (or when the ledger closed the
 * call meanwhile), the refusal the call settles with. Null when the tool answered.
 */
async function waitForInput(
  ledger: Ledger,
  ref: RunRef,
  proposal: LedgerProposal,
  ran: Execution,
  made: Made,
  admitted: { deadlineAt: number; budget: BudgetView },
): Promise<Decision | Execution | null> {
  if (ran.ok || !("input" in ran) || ran.input === undefined) return null;
  const round = (made.continues?.round ?? 0) + 1;
  if (round > MAX_INPUT_ROUNDS) {
    const detail = `${proposal.tool} asked the client for input again after ${MAX_INPUT_ROUNDS} rounds; the fence relays no more to one call.`;
    return { ok: false, refusal: refuse("output_contract_violation", detail) };
  }
  const leaseMs = Math.max(1, Math.min(INPUT_WAIT_MS, admitted.deadlineAt - Date.now()));
  const step = { callId: proposal.callId, round, leaseMs };
  if (!(await ledger.awaitInput(ref, step))) {
    const detail = `${proposal.tool} asked the client for input after its call was closed.`;
    return { ok: false, refusal: refuse("upstream_outcome_unknown", detail) };
  }
  const body = { decision: "input_required", call_id: proposal.callId, budget: admitted.budget };
  const continues = { callId: proposal.callId, round, fingerprint: proposal.fingerprint };
  return {
    status: 200,
    body,
    cache: null,
    cacheKey: null,
    replayed: false,
    retryAfterS: null,
    input: { asked: ran.input, continues },
  };
}

/** The ledger's view of a gated call; a miss is charged, `outcome` is set later. */
function proposalOf(
  c: AppContext,
  call: GatedCall,
  callId: string,
  kept: Pick<LedgerProposal, "args" | "evidence" | "auditArgs">,
): LedgerProposal {
  const timeoutMs = timeoutOf(c, call, Number.POSITIVE_INFINITY);
  const { upstream } = call.contract;
  return {
    callId,
    tool: call.contract.name,
    form: call.form,
    effect: call.contract.effect,
    paid: call.contract.paid,
    key: call.key,
    upstreamIdempotent: upstream.kind !== "inline" && upstream.idempotent === true,
    fingerprint: call.fingerprint,
    target: targetOf(targetRuleOf(c.get("fence"), call.contract.name), call.args),
    leaseMs: timeoutMs + LEASE_MARGIN_MS,
    timeoutMs,
    outcome: null,
    origin: new URL(c.req.url).origin,
    ...kept,
  };
}

/** The call's wall-clock limit: the tool's own, the policy's cap, and the run's deadline. */
function timeoutOf(c: AppContext, call: GatedCall, untilDeadline: number): number {
  const cap = c.get("fence").policy.call_timeout_cap_ms;
  return Math.max(1, Math.min(call.contract.timeoutMs, cap, untilDeadline));
}

async function run(
  c: AppContext,
  ref: RunRef,
  call: GatedCall,
  deadlineAt: number,
  relay: Partial<Pick<Made, "bearer" | "notify" | "input">> = {},
): Promise<Execution> {
  const { bearer, notify, input } = relay;
  const upstreamKey =
    call.key === null ? null : `tf-${await sha256Hex(`${ref.tenant}\n${ref.runId}\n${call.key}`)}`;
  return execute(call.contract, call.args, {
    env: c.env,
    tenant: ref.tenant,
    runId: ref.runId,
    upstreamKey,
    timeoutMs: timeoutOf(c, call, deadlineAt - Date.now()),
    answerLimit: c.get("fence").policy.upstream_answer_max_bytes,
    resultRules: resultRulesOf(c.get("fence"), call.contract),
    ...(bearer === undefined ? {} : { bearer }),
    ...(notify === undefined ? {} : { notify }),
    ...(input === undefined ? {} : { input }),
  });
}

function outcomeOf(
  execution: Execution,
  callId: string,
  decision: "applied" | "cached",
  cache: CacheStatus | null,
): Outcome {
  const guard = guardOf(execution);
  if (!execution.ok) return { ...failed(execution.refusal, callId, cache), ...guard.note };
  const body = JSON.stringify({
    decision,
    result: execution.result,
    call_id: callId,
    ...guard.body,
  });
  return { decision, reason: null, status: 200, body, cache, ...guard.note };
}

/**
 * The outcome as the ledger needs it: the answer's body is stored only under an idempotency
 * key (for replay), so without one it is not sent to the run's object at all.
 */
function forLedger(outcome: Outcome, p: LedgerProposal): Outcome {
  return mutationKey(p) !== null ? outcome : { ...outcome, body: "" };
}

function refused(refusal: Refusal, extra: Record<string, unknown>): Decision {
  const body = problemDetails(refusal, extra);
  const { status } = DECISION_TABLE[refusal.reason];
  return { status, body, cache: null, cacheKey: null, replayed: false, retryAfterS: null };
}

function withBudget(
  body: string,
  budget: BudgetView,
  patch: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...(JSON.parse(body) as Record<string, unknown>), ...patch, budget };
}

/** The answer of a call that ran or was served; a cacheable read names its `cache_key`. */
function respond(outcome: Outcome, budget: BudgetView, cacheKey: string | null): Decision {
  const patch = cacheKey === null ? {} : { cache_key: cacheKey };
  const body = withBudget(outcome.body, budget, patch);
  const { status, cache } = outcome;
  return { status, body, cache, cacheKey, replayed: false, retryAfterS: null };
}

function replayed(status: number, body: string, budget: BudgetView): Decision {
  const patch = status === 200 ? { decision: "replayed" } : {};
  const answer = withBudget(body, budget, patch);
  return { status, body: answer, cache: null, cacheKey: null, replayed: true, retryAfterS: null };
}
