/**
 * Calling a tool once, within its timeout, and checking its answer against the output
 * contract; the request is built only from validated arguments.
 */
import type { ToolContract, Upstream } from "../core/contract.ts";
import type { ResolvedRules } from "../core/guardrails/rules.ts";
import type { GuardFinding } from "../core/guardrails/scan.ts";
import { DEFAULT_ANSWER_MAX_BYTES } from "../core/policy.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import type { UpstreamReply } from "../core/upstream-excerpt.ts";
import { validateOutput } from "../core/validate.ts";
import {
  inClientSpan,
  outgoingTrace,
  recordGuardrail,
  recordUpstream,
} from "../telemetry/index.ts";
import { AnswerCut, AnswerTooLarge, readBounded } from "./answer-bound.ts";
import { callHeaders, type PrincipalToken } from "./call-identity.ts";
import { classifyStatus } from "./classify.ts";
import type { Execution } from "./execution.ts";
import { guarded } from "./guard.ts";
// A type only: the MCP client SDK is loaded by the first MCP call (see `call`).
import type { InputRelay, UpstreamInput, UpstreamNotice } from "./mcp.ts";

/** What one execution needs besides the validated arguments. */
export interface ExecutionContext {
  /** Bindings and secrets. */
  env: Env;
  /** Tenant the call is made for. */
  tenant: string;
  /** Run the call belongs to. */
  runId: string;
  /** Key forwarded as `Idempotency-Key`, stable across retries of one intent, or null. */
  upstreamKey: string | null;
  /** Wall-clock limit in ms. */
  timeoutMs: number;
  /**
   * Most bytes of the answer read (policy `upstream_answer_max_bytes`; its default if absent),
   * lowered by the contract's own `maxAnswerBytes`.
   */
  answerLimit?: number;
  /** The result rules the answer passes before anyone sees it; none if absent. */
  resultRules?: ResolvedRules;
  /** The principal's token, for a tool whose upstream is called as the principal. */
  bearer?: PrincipalToken;
  /** Where an MCP upstream's progress and log messages go during the call; none if absent. */
  notify?: (notice: UpstreamNotice) => void;
  /** Set for an MCP client an upstream may ask for input during the call (mcp.ts). */
  input?: InputRelay;
}

export type { Execution };

const TIMED_OUT = Symbol("timed out");

/**
 * Run a tool once, within its timeout, and check its answer against the output contract and
 * then the result rules: whatever is cached, kept, audited or answered is what they left.
 */
export async function execute(
  contract: ToolContract,
  args: unknown,
  ctx: ExecutionContext,
): Promise<Execution> {
  const execution = await reach(contract, args, ctx);
  if (ctx.resultRules === undefined) return execution;
  const checked = guarded(execution, contract, ctx.resultRules);
  // Counted, and the call's trace kept whatever the sampler said (docs/operations.md).
  for (const f of checked.findings ?? []) recordGuardrail(ctx.env, f.rule, f.action);
  return checked;
}

async function reach(
  contract: ToolContract,
  args: unknown,
  ctx: ExecutionContext,
): Promise<Execution> {
  const upstream = contract.upstream;
  // A tool the fence answers itself has no upstream to wait for: no timer.
  if (upstream.kind === "inline") {
    try {
      return judge(contract, { status: 200, body: await upstream.answer(args) });
    } catch (e) {
      return failure(contract, e, { status: null });
    }
  }
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(TIMED_OUT);
    }, ctx.timeoutMs);
  });
  const started = Date.now();
  const bounded = { ...ctx, answerLimit: answerLimitOf(contract, ctx) };
  const heard: Heard = { status: null };
  const reached = inClientSpan(`upstream ${contract.name}`, upstreamAttributes(contract), () =>
    call(contract.name, upstream, args, bounded, controller.signal, heard),
  );
  const execution = await answered(contract, ctx, Promise.race([reached, deadline]), heard);
  clearTimeout(timer);
  const outcome = execution.ok ? "ok" : execution.refusal.reason;
  recordUpstream(ctx.env, contract.name, outcome, Date.now() - started);
  return execution;
}

/**
 * What the upstream said of its answer to the call before its body: the HTTP status, once its
 * status line and headers came (for an MCP server, those of its answer to `tools/call`).
 */
interface Heard {
  status: number | null;
}

/** The execution an upstream's answer (or its timeout, or its failure) comes to. */
async function answered(
  contract: ToolContract,
  ctx: ExecutionContext,
  race: Promise<Answer | typeof TIMED_OUT>,
  heard: Heard,
): Promise<Execution> {
  try {
    const answer = await race;
    if (answer === TIMED_OUT) {
      if (heard.status !== null) {
        const why = `its body did not arrive within ${ctx.timeoutMs} ms`;
        return cutShort(contract, "upstream_timeout", why, { status: heard.status, text: null });
      }
      const detail = `${contract.name} did not answer within ${ctx.timeoutMs} ms; retry with the same key.`;
      return { ok: false, refusal: refuse("upstream_timeout", detail), reply: NO_ANSWER };
    }
    return judge(contract, answer);
  } catch (e) {
    return failure(contract, e, heard);
  }
}

/**
 * An answer whose status came and whose body did not (cut mid-stream, or too slow). A status
 * other than 2xx says what happened, and is classified as it says. A 2xx says the tool took the
 * call: a mutation may have acted, so it is settled as an escalation whose outcome is unknown,
 * which a retry with the same key replays, never sent again; a read has no effect to repeat,
 * so it is a `retry` (`readReason`), as if no answer had come.
 */
function cutShort(
  contract: ToolContract,
  readReason: "upstream_timeout" | "upstream_unavailable",
  why: string,
  reply: UpstreamReply & { status: number },
): Execution {
  const { name } = contract;
  const classified = classifyStatus(reply.status, name);
  if (classified !== null) return { ok: false, refusal: classified, reply };
  const answered = `${name} answered HTTP ${reply.status}, but ${why}`;
  if (contract.effect !== "mutate") {
    return { ok: false, refusal: refuse(readReason, `${answered}; retry the call.`), reply };
  }
  const detail = `${answered}. The tool took the call and may have acted: the call is settled with this outcome, and a retry with the same key replays it.`;
  return { ok: false, refusal: refuse("upstream_outcome_unknown", detail), reply };
}

/** The upstream span's attributes: the tool and where it runs, never its arguments. */
function upstreamAttributes(contract: ToolContract): Record<string, string> {
  const { upstream } = contract;
  const attributes: Record<string, string> = {
    "gen_ai.tool.name": contract.name,
    "toolfence.upstream.kind": upstream.kind,
  };
  if (upstream.kind === "service") attributes["toolfence.upstream.binding"] = upstream.binding;
  const url = upstream.kind === "http" ? URL.parse(upstream.url) : null;
  if (url !== null) attributes["server.address"] = url.hostname;
  return attributes;
}

/** The refusal of a call that threw before its tool's answer was read in full. */
function failure(contract: ToolContract, e: unknown, heard: Heard): Execution {
  if (e instanceof PathEscape) {
    const detail = `${contract.name}: the arguments would leave the upstream's base path (${e.message}); nothing was sent.`;
    return { ok: false, refusal: refuse("contract_violation", detail) };
  }
  if (e instanceof AnswerTooLarge) {
    const reply = { status: e.status, text: e.head, bytes: e.seen };
    return { ok: false, refusal: tooLarge(contract.name, e), reply };
  }
  if (e instanceof AnswerCut) {
    const reply = { status: e.status, text: e.head, bytes: e.seen };
    const why = `its answer was cut after ${e.seen} bytes`;
    return cutShort(contract, "upstream_unavailable", why, reply);
  }
  if (heard.status !== null) {
    const why = `its answer failed before it was read (${(e as Error).name})`;
    return cutShort(contract, "upstream_unavailable", why, { status: heard.status, text: null });
  }
  const detail = `${contract.name} could not be reached (${(e as Error).name}); retry with the same key.`;
  return { ok: false, refusal: refuse("upstream_unavailable", detail), reply: NO_ANSWER };
}

/** What a call that got no answer keeps of its upstream: no status, no text. */
const NO_ANSWER: UpstreamReply = { status: null, text: null };

/** The bound on the answer's bytes: the policy's, or the contract's own where it is lower. */
function answerLimitOf(contract: ToolContract, ctx: ExecutionContext): number {
  const policy = ctx.answerLimit ?? DEFAULT_ANSWER_MAX_BYTES;
  return Math.min(policy, contract.maxAnswerBytes ?? policy);
}

/** The refusal of an answer past its bound: the tool was reached, so it may have acted. */
function tooLarge(tool: string, e: AnswerTooLarge): Refusal {
  const detail = `${tool} answered with more than ${e.limit} bytes (${e.seen} seen); the answer was not read further. The tool was reached and may have acted: the call is settled with this outcome, and a retry with the same key replays it.`;
  return refuse("upstream_answer_too_large", detail);
}

/** An upstream's answer, read in full before the deadline. */
interface Answer {
  status: number;
  body: unknown;
  /** Set when the upstream answered with a refusal of its own (an MCP error result). */
  refusal?: Refusal;
  /** The answer as it came, kept (excerpted) if it fails the call; none for an inline tool. */
  reply?: UpstreamReply;
  /** What the result rules found in the text of the upstream's own refusal. */
  findings?: readonly GuardFinding[];
  /** What an MCP upstream asked the client before it can answer (with its `refusal`). */
  input?: UpstreamInput;
  /** The client capabilities an MCP upstream said the call needs (with its `refusal`). */
  missing?: Record<string, unknown>;
}

function judge(contract: ToolContract, answer: Answer): Execution {
  const reply = answer.reply === undefined ? {} : { reply: answer.reply };
  if (answer.refusal !== undefined && answer.input !== undefined) {
    return { ok: false, refusal: answer.refusal, input: answer.input };
  }
  if (answer.refusal !== undefined) {
    const findings = answer.findings === undefined ? {} : { findings: answer.findings };
    const missing = answer.missing === undefined ? {} : { missing: answer.missing };
    return { ok: false, refusal: answer.refusal, ...reply, ...findings, ...missing };
  }
  const refusal = classifyStatus(answer.status, contract.name);
  if (refusal !== null) return { ok: false, refusal, ...reply };
  const checked = validateOutput(contract, answer.body);
  return checked.ok
    ? { ok: true, result: checked.value }
    : { ok: false, refusal: checked.error, ...reply };
}

async function call(
  tool: string,
  upstream: Exclude<Upstream, { kind: "inline" }>,
  args: unknown,
  ctx: ExecutionContext,
  signal: AbortSignal,
  heard: Heard,
): Promise<Answer> {
  if (upstream.kind === "mcp") {
    // The MCP client SDK is loaded on the first MCP call: evaluating it at startup would
    // add to every isolate's start, MCP upstream or not.
    const { callMcp } = await import("./mcp.ts");
    const answering = (status: number) => {
      heard.status = status;
    };
    const answer = await callMcp(upstream, args, { ...ctx, signal, answering }, tool);
    if (answer.ok) return { status: 200, body: answer.body };
    if ("input" in answer) return { status: 200, body: null, ...answer };
    const { refusal, reply, findings, missing } = answer;
    const named = missing === undefined ? {} : { missing };
    return { status: 200, body: null, refusal, reply, ...(findings ? { findings } : {}), ...named };
  }
  const request = buildRequest(upstream, args, ctx, signal);
  const response =
    upstream.kind === "service"
      ? await bindingOf(ctx.env, upstream.binding).fetch(request)
      : await fetch(request);
  heard.status = response.status;
  const text = await readBounded(response, ctx.answerLimit ?? DEFAULT_ANSWER_MAX_BYTES);
  return {
    status: response.status,
    body: parseBody(text),
    reply: { status: response.status, text },
  };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: the output contract rejects it with what was received.
    return text;
  }
}

function bindingOf(env: Env, name: string): Fetcher {
  const binding = (env as unknown as Record<string, unknown>)[name];
  if (typeof (binding as Fetcher | undefined)?.fetch !== "function") {
    throw new TypeError(`no service binding named ${name}`);
  }
  return binding as Fetcher;
}

function fill(template: string, args: Record<string, unknown>): string {
  return template.replace(/\{([a-z_][a-z0-9_]*)\}/gi, (_, name: string) =>
    encodeURIComponent(String(args[name] ?? "")),
  );
}

/** Thrown when a filled URL would leave its upstream's base; nothing is sent. */
export class PathEscape extends Error {
  override readonly name = "PathEscape";
}

/**
 * The request URL: the template filled with the arguments, checked to still be under the
 * template's fixed prefix (origin and path up to the first placeholder). The gate refuses
 * dot segments first (src/core/path-args.ts); this holds whatever a template looks like.
 */
function urlOf(
  upstream: Exclude<Upstream, { kind: "inline" | "mcp" }>,
  fields: Record<string, unknown>,
): URL {
  const template =
    upstream.kind === "service"
      ? `https://${upstream.binding.toLowerCase()}.internal${upstream.path}`
      : upstream.url;
  const url = new URL(fill(template, fields));
  const fixed = template.split("{")[0] ?? "";
  const base = new URL(fixed.slice(0, fixed.lastIndexOf("/") + 1) || fixed);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    throw new PathEscape(`${url.pathname} is outside ${base.pathname}`);
  }
  return url;
}

function buildRequest(
  upstream: Exclude<Upstream, { kind: "inline" | "mcp" }>,
  args: unknown,
  ctx: ExecutionContext,
  signal: AbortSignal,
): Request {
  const fields = (args ?? {}) as Record<string, unknown>;
  const url = urlOf(upstream, fields);
  const headers = new Headers(callHeaders(ctx));
  // W3C Trace Context §3: the upstream's spans join the call's trace.
  for (const [name, value] of Object.entries(outgoingTrace())) headers.set(name, value);
  if (ctx.upstreamKey !== null) headers.set("Idempotency-Key", ctx.upstreamKey);
  if (upstream.kind === "http" && upstream.auth !== undefined) {
    const secret = (ctx.env as unknown as Record<string, unknown>)[upstream.auth.secret];
    if (typeof secret === "string") {
      headers.set(
        upstream.auth.header,
        upstream.auth.scheme ? `${upstream.auth.scheme} ${secret}` : secret,
      );
    }
  }
  if (upstream.method === "GET") {
    for (const [k, v] of Object.entries(fields)) url.searchParams.set(k, String(v));
    return new Request(url, { method: "GET", headers, signal });
  }
  headers.set("Content-Type", "application/json");
  return new Request(url, {
    method: upstream.method,
    headers,
    body: JSON.stringify(fields),
    signal,
  });
}
