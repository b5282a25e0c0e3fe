/**
 * Calling a tool of an MCP server: the fence is an MCP client (the official SDK, streamable
 * HTTP; sessions and SSE are the SDK's), one connection per call so no session or state is
 * shared between tenants or runs. Owns how MCP outcomes map onto the decision table; the
 * output contract is checked by the caller, as for every upstream kind.
 */
import {
  Client,
  type FetchLike,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import type { McpEndpoint, McpUpstream } from "../core/contract.ts";
import { DEFAULT_RULES, type ResolvedRules } from "../core/guardrails/rules.ts";
import { type GuardFinding, noticeOf } from "../core/guardrails/scan.ts";
import { DEFAULT_ANSWER_MAX_BYTES } from "../core/policy.ts";
import { secretAuthOf } from "../core/principal-auth.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import { type UpstreamReply, upstreamErrorText } from "../core/upstream-excerpt.ts";
import { outgoingTrace } from "../telemetry/index.ts";
import { AnswerTooLarge, boundedResponse } from "./answer-bound.ts";
import { bearerHeader, callHeaders, type PrincipalToken } from "./call-identity.ts";
import { classifyStatus } from "./classify.ts";
import { allTools } from "./mcp-list.ts";

/** Where the idempotency key travels in `tools/call`, so the server can deduplicate. */
export const IDEMPOTENCY_META = "io.toolfence/idempotency-key";

/** Most characters of an upstream's error text carried into a refusal's detail. */
export const MAX_UPSTREAM_TEXT = 500;

/** Most notifications relayed from one call (progress and log messages); later ones are dropped. */
export const MAX_NOTICES = 32;

/** Most characters of a relayed notification's text (a log message's data, a progress message). */
export const MAX_NOTICE_TEXT = 1_000;

/**
 * What an upstream tool said while it ran, for the caller to relay during the call: progress,
 * or a log message (its data as text). Texts have passed the tool's result rules.
 */
export type UpstreamNotice =
  | { kind: "progress"; progress: number; total?: number; message?: string }
  | { kind: "log"; level: LogLevel; logger?: string; data: string };

/**
 * Most input requests one round of an upstream may ask the client (MCP 2026-07-28
 * `inputRequests`); an upstream that asks more fails the call.
 */
export const MAX_INPUT_REQUESTS = 8;

/** Most bytes of one relayed input request, as JSON; a larger one fails the call. */
export const MAX_INPUT_REQUEST_BYTES = 16_384;

/** The client capabilities an upstream may ask the client for input by (MCP, "Client features"). */
const INPUT_CAPABILITIES = {
  elicitation: "elicitation/create",
  sampling: "sampling/createMessage",
  roots: "roots/list",
} as const;

/**
 * A client on MCP 2026-07-28 whose upstream calls may ask it for input: what it declared it
 * can answer, and its answers to the upstream's last round when the call continues.
 */
export interface InputRelay {
  /** The client's declared capabilities, of which only elicitation, sampling and roots count. */
  declared: Record<string, unknown>;
  /** The client's answers to the upstream's last round, with the upstream's state, if any. */
  answers?: { inputResponses: Record<string, unknown>; requestState?: string };
}

/** What an upstream asked the client before it can answer (MCP 2026-07-28 `input_required`). */
export interface UpstreamInput {
  /** The input requests, by the keys the upstream gave them, each within the bounds above. */
  inputRequests: Record<string, { method: string; params?: unknown }>;
  /** The upstream's opaque state for its next round, if it sent one. */
  requestState?: string;
}

/** The log levels of MCP (RFC 5424's severities). */
type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** How long the drift check waits for one server's tool list. */
const LIST_TIMEOUT_MS = 10_000;

/** What one MCP call needs besides the tool and its arguments. */
export interface McpCallContext {
  /** Bindings, variables and secrets. */
  env: Env;
  /** Tenant the call is made for. */
  tenant: string;
  /** Run the call belongs to. */
  runId: string;
  /** Idempotency key of the call, or null for a read. */
  upstreamKey: string | null;
  /** Aborted when the call's timeout passes. */
  signal: AbortSignal;
  /** Most bytes of each answer the server sends (its default if absent). */
  answerLimit?: number | undefined;
  /** The tool's result rules, which its error texts pass too (the defaults if absent). */
  resultRules?: ResolvedRules | undefined;
  /** Told the HTTP status of the server's answer to `tools/call` once its headers came. */
  answering?: (status: number) => void;
  /** The principal's token, for a server called as the principal. */
  bearer?: PrincipalToken | undefined;
  /** Where the upstream's progress and log messages go during the call; dropped if absent. */
  notify?: ((notice: UpstreamNotice) => void) | undefined;
  /** Set for a client that may be asked for input during the call; none may be if absent. */
  input?: InputRelay | undefined;
}

/**
 * The tool's answer (content and structured content), or why there is none, with what the
 * server answered when it answered (excerpted and redacted before it is kept).
 */
export type McpAnswer =
  | { ok: true; body: unknown }
  | {
      ok: false;
      refusal: Refusal;
      reply?: UpstreamReply;
      findings?: readonly GuardFinding[];
      /** The client capabilities the server said the call needs (`-32021`), if it said. */
      missing?: Record<string, unknown>;
    }
  | { ok: false; refusal: Refusal; input: UpstreamInput };

/**
 * The byte bound on every response of one connection, and what passed it. The SDK reads the
 * responses itself (JSON or an SSE stream) and may wrap or swallow a stream's error, so the
 * bound's error is also raised through `passed`, which the call races against.
 */
class Bound {
  error: AnswerTooLarge | null = null;
  readonly passed: Promise<never>;
  private fail: (e: AnswerTooLarge) => void = () => undefined;
  constructor(readonly limit: number) {
    this.passed = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    this.passed.catch(() => undefined);
  }
  /**
   * `fetch` with each response counted against the bound while it streams; `answering` is told
   * the status of the answer to a `tools/call` request as soon as its headers come.
   */
  wrap(fetch: FetchLike, answering?: (status: number) => void): FetchLike {
    const over = (e: AnswerTooLarge) => {
      this.error = e;
      this.fail(e);
    };
    return async (input, init) => {
      const response = boundedResponse(await fetch(input, init), this.limit, over);
      if (answering !== undefined && isToolCall(init?.body)) answering(response.status);
      return response;
    };
  }
  /** `work`, ended by the bound's error if an answer passes it first. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.passed]);
  }
}

/**
 * Call `upstream.tool` once. Transport failures throw (the caller maps them to retry rows), as
 * does an answer past the byte bound (AnswerTooLarge); HTTP statuses the server answered with
 * and `isError` results come back as refusals.
 */
export async function callMcp(
  upstream: McpUpstream,
  args: unknown,
  ctx: McpCallContext,
  name: string,
): Promise<McpAnswer> {
  const bound = new Bound(ctx.answerLimit ?? DEFAULT_ANSWER_MAX_BYTES);
  // W3C Trace Context, as HTTP headers and as the `_meta` fields of the same names (MCP).
  const traced = outgoingTrace();
  const headers = { ...callHeaders(ctx), ...traced, ...bearerHeader(ctx.bearer) };
  const answer = await callWith(upstream, args, ctx, name, { bound, traced, headers });
  // A token the server refused is refreshed before the connection's next use.
  if (!answer.ok && "reply" in answer && answer.reply?.status === 401) ctx.bearer?.rejected();
  return answer;
}

/** The call of callMcp, over one connection with `headers`. */
async function callWith(
  upstream: McpUpstream,
  args: unknown,
  ctx: McpCallContext,
  name: string,
  sending: { bound: Bound; traced: Record<string, string>; headers: Record<string, string> },
): Promise<McpAnswer> {
  const { bound, traced, headers } = sending;
  const client = await bound.race(connect(upstream, ctx, headers, bound)).catch((e: unknown) => e);
  const rules = ctx.resultRules ?? DEFAULT_RULES;
  if (!(client instanceof Client)) return refusalOf(bound.error ?? client, name, rules);
  try {
    const key = ctx.upstreamKey === null ? {} : { [IDEMPOTENCY_META]: ctx.upstreamKey };
    const sent = { ...traced, ...key };
    const meta = Object.keys(sent).length === 0 ? undefined : sent;
    const relay = ctx.notify === undefined ? undefined : noticeRelay(ctx.notify, rules);
    if (relay !== undefined) {
      client.setNotificationHandler("notifications/message", ({ params }) => relay.log(params));
    }
    const params = {
      name: upstream.tool,
      arguments: args as Record<string, unknown>,
      _meta: meta,
      ...ctx.input?.answers,
    };
    const result = await bound.race(
      client.callTool(params, {
        signal: ctx.signal,
        // An upstream's request for input is handed back, for the client to answer.
        allowInputRequired: ctx.input !== undefined,
        ...(relay === undefined ? {} : { onprogress: relay.progress }),
      }),
    );
    if (isInputRequiredResult(result)) {
      return inputAsked(result, ctx.input?.declared ?? {}, name, rules);
    }
    if (result.isError === true) {
      const whole = textOf(result.content);
      const reply = { status: 200, isError: true, text: whole };
      return { ok: false, reply, ...rejected(name, whole, rules) };
    }
    const { content, structuredContent } = result;
    return {
      ok: true,
      body: structuredContent === undefined ? { content } : { content, structuredContent },
    };
  } catch (e) {
    return refusalOf(bound.error ?? e, name, rules);
  } finally {
    // Ends the session on the server too; a failure to close changes nothing about the call.
    await client.close().catch(() => undefined);
  }
}

/**
 * Every tool the server of `upstream` lists now, asked with `headers` as a call sends them
 * (the drift check, the pin check at call time).
 */
export async function listMcpTools(
  upstream: McpUpstream,
  env: Env,
  headers: Record<string, string>,
): Promise<Tool[]> {
  const bound = new Bound(DEFAULT_ANSWER_MAX_BYTES);
  const signal = AbortSignal.timeout(LIST_TIMEOUT_MS);
  const client = await connect(upstream, { env, signal }, headers, bound);
  try {
    return await bound.race(allTools(client));
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * A connected client of the server of `upstream`, sending its credentials and `extra` headers.
 * For a client that may be asked for input, the connection is on the newest era the server
 * speaks (2026-07-28 asks in results, which the client answers on a retry) and declares what
 * that client declared of elicitation, sampling and roots, so the server asks nothing else.
 */
async function connect(
  upstream: McpUpstream,
  ctx: Pick<McpCallContext, "env" | "signal" | "answering" | "input">,
  extra: Record<string, string>,
  bound: Bound,
): Promise<Client> {
  const { env, signal } = ctx;
  const { url, fetch: reaching } = reach(upstream.endpoint, env);
  const fetch = bound.wrap(reaching, ctx.answering);
  const headers = new Headers(extra);
  const auth = secretAuthOf(upstream.auth);
  if (auth !== undefined) {
    const secret = (env as unknown as Record<string, unknown>)[auth.secret];
    if (typeof secret === "string") {
      headers.set(auth.header, auth.scheme ? `${auth.scheme} ${secret}` : secret);
    }
  }
  const transport = new StreamableHTTPClientTransport(url, { fetch, requestInit: { headers } });
  const asking =
    ctx.input === undefined
      ? {}
      : {
          capabilities: inputCapabilities(ctx.input.declared),
          versionNegotiation: { mode: "auto" as const },
          inputRequired: { autoFulfill: false },
        };
  // The cf-worker validator interprets schemas; workerd forbids the code generation ajv does.
  const client = new Client(
    { name: "toolfence", version: "1" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), ...asking },
  );
  await client.connect(transport, { signal });
  return client;
}

/** Of a client's declared capabilities, those an upstream may ask it for input by. */
function inputCapabilities(declared: Record<string, unknown>): Record<string, object> {
  const kept: Record<string, object> = {};
  for (const name of Object.keys(INPUT_CAPABILITIES)) {
    const value = declared[name];
    if (typeof value === "object" && value !== null) kept[name] = value;
  }
  return kept;
}

/**
 * An upstream's request for input, to hand to the client: refused when it asks more requests,
 * or larger ones, than the bounds allow, or by a method the client did not declare (the
 * connection declared only the client's, so the server broke the protocol). An elicitation's
 * message, which a person reads, passes the tool's result rules as its notices do.
 */
function inputAsked(
  result: { inputRequests?: unknown; requestState?: unknown },
  declared: Record<string, unknown>,
  name: string,
  rules: ResolvedRules,
): McpAnswer {
  const allowed = Object.keys(inputCapabilities(declared)).map(
    (capability) => INPUT_CAPABILITIES[capability as keyof typeof INPUT_CAPABILITIES] as string,
  );
  const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown }>;
  const entries = Object.entries(requests);
  const broken = (why: string): McpAnswer => {
    const detail = `${name} asked the client for input the fence does not relay: ${why}.`;
    return { ok: false, refusal: refuse("output_contract_violation", detail) };
  };
  if (entries.length > MAX_INPUT_REQUESTS) {
    return broken(`${entries.length} requests in one round, past ${MAX_INPUT_REQUESTS}`);
  }
  for (const [key, request] of entries) {
    const method = typeof request?.method === "string" ? request.method : "";
    if (!allowed.includes(method)) {
      return broken(
        `request ${JSON.stringify(key.slice(0, 64))} is ${JSON.stringify(method.slice(0, 64))}, which the client did not declare`,
      );
    }
    const bytes = UTF8.encode(JSON.stringify(request)).byteLength;
    if (bytes > MAX_INPUT_REQUEST_BYTES) {
      return broken(
        `request ${JSON.stringify(key.slice(0, 64))} holds ${bytes} bytes, past ${MAX_INPUT_REQUEST_BYTES}`,
      );
    }
  }
  const state =
    typeof result.requestState === "string" ? { requestState: result.requestState } : {};
  const stateBytes = UTF8.encode(state.requestState ?? "").byteLength;
  if (stateBytes > MAX_INPUT_REQUEST_BYTES) {
    return broken(`its request state holds ${stateBytes} bytes, past ${MAX_INPUT_REQUEST_BYTES}`);
  }
  const ruled = Object.fromEntries(entries.map(([key, r]) => [key, ruledMessage(r, rules)]));
  const input = { inputRequests: ruled as UpstreamInput["inputRequests"], ...state };
  const detail = `${name} asked the client for input; the call continues when it answers.`;
  return { ok: false, refusal: refuse("upstream_rejected", detail), input };
}

const UTF8 = new TextEncoder();

/** An input request with its `params.message`, if it has one, after the tool's result rules. */
function ruledMessage(request: { method?: unknown; params?: unknown }, rules: ResolvedRules) {
  const params = request.params as { message?: unknown } | undefined;
  if (typeof params?.message !== "string") return request;
  return {
    ...request,
    params: { ...params, message: upstreamErrorText(params.message, rules).text },
  };
}

/**
 * Whether a request body the SDK sends is the `tools/call` request (it sends each JSON-RPC
 * message as a JSON string): its answer is the tool's, the others' are the session's.
 */
function isToolCall(body: unknown): boolean {
  if (typeof body !== "string") return false;
  try {
    return (JSON.parse(body) as { method?: unknown } | null)?.method === "tools/call";
  } catch {
    return false;
  }
}

/**
 * The upstream's notifications of one call, bounded (MAX_NOTICES, MAX_NOTICE_TEXT) and their
 * texts passed through the tool's result rules (as its error texts are) before `notify` sees
 * them: they reach the agent as a result would.
 */
function noticeRelay(notify: (notice: UpstreamNotice) => void, rules: ResolvedRules) {
  let left = MAX_NOTICES;
  const text = (raw: unknown) => {
    const whole = typeof raw === "string" ? raw : JSON.stringify(raw ?? null);
    return Array.from(upstreamErrorText(whole, rules).text).slice(0, MAX_NOTICE_TEXT).join("");
  };
  const send = (notice: UpstreamNotice) => {
    if (left <= 0) return;
    left--;
    notify(notice);
  };
  return {
    progress: (p: { progress: number; total?: number; message?: string }) =>
      send({
        kind: "progress",
        progress: p.progress,
        ...(p.total === undefined ? {} : { total: p.total }),
        ...(p.message === undefined ? {} : { message: text(p.message) }),
      }),
    log: (p: { level: LogLevel; logger?: string; data?: unknown }) =>
      send({
        kind: "log",
        level: p.level,
        ...(p.logger === undefined ? {} : { logger: text(p.logger) }),
        data: text(p.data),
      }),
  };
}

/** An SDK failure as a refusal where the server answered; a transport failure is rethrown. */
function refusalOf(e: unknown, name: string, rules: ResolvedRules): McpAnswer {
  const status = httpStatusOf(e);
  const refusal = status === null ? null : classifyStatus(status, name);
  if (refusal !== null && status !== null) {
    const text = httpTextOf(e);
    return { ok: false, refusal, reply: { status, text }, ...missingOf(rpcErrorOf(text)) };
  }
  if (e instanceof AnswerTooLarge) throw e;
  // A JSON-RPC error is the server's answer, not a transport failure: retrying cannot help.
  if (e instanceof ProtocolError) {
    const reply = { status: 200, rpcCode: e.code, text: e.message };
    const missing = missingOf(e);
    return { ok: false, reply, ...rejected(name, e.message, rules), ...missing };
  }
  throw e;
}

/**
 * The client capabilities a server said the call needs (`-32021`, MissingRequiredClientCapability,
 * 2026-07-28), when it said which: the client is told so, as the server would have told it.
 */
function missingOf(e: { code: number; data?: unknown } | null): {
  missing?: Record<string, unknown>;
} {
  if (e?.code !== ProtocolErrorCode.MissingRequiredClientCapability) return {};
  const required = (e.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  const kept =
    typeof required === "object" && required !== null
      ? inputCapabilities(required as Record<string, unknown>)
      : {};
  return Object.keys(kept).length === 0 ? {} : { missing: kept };
}

/** The JSON-RPC error of an HTTP error's body (2026-07-28 answers `-32021` with HTTP 400). */
function rpcErrorOf(text: string | null): { code: number; data?: unknown } | null {
  try {
    const error = (JSON.parse(text ?? "null") as { error?: { code?: unknown; data?: unknown } })
      ?.error;
    return typeof error?.code === "number" ? { code: error.code, data: error.data } : null;
  } catch {
    return null;
  }
}

/** The body text an SDK HTTP error carries (`SdkHttpError.data.text`), or null. */
function httpTextOf(e: unknown): string | null {
  const data = (e as { data?: { text?: unknown } } | null)?.data;
  return typeof data?.text === "string" ? data.text : null;
}

/** The server's URL and the fetch that reaches it, for one endpoint. */
function reach(endpoint: McpEndpoint, env: Env): { url: URL; fetch: FetchLike } {
  const vars = env as unknown as Record<string, unknown>;
  if ("urlVar" in endpoint) {
    const url = vars[endpoint.urlVar];
    if (typeof url !== "string" || url === "") {
      throw new TypeError(`the variable ${endpoint.urlVar} holds no MCP server URL`);
    }
    return { url: new URL(url), fetch: (input, init) => fetch(input, init) };
  }
  const binding = vars[endpoint.binding] as Fetcher | undefined;
  if (typeof binding?.fetch !== "function") {
    throw new TypeError(`no service binding named ${endpoint.binding}`);
  }
  const url = new URL(endpoint.path, `https://${endpoint.binding.toLowerCase()}.internal`);
  return { url, fetch: (input, init) => binding.fetch(input, init) };
}

/** The HTTP status an SDK error carries (`SdkHttpError.data.status`), or null. */
function httpStatusOf(e: unknown): number | null {
  if (typeof e !== "object" || e === null) return null;
  if ((e as Error).name === "UnauthorizedError") return 401;
  const data = (e as { data?: unknown }).data;
  const status = (data as { status?: unknown } | undefined)?.status;
  return typeof status === "number" ? status : null;
}

/** The text blocks of an error result, joined. */
function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [];
  return blocks
    .map((b) => (typeof b?.text === "string" ? (b.text as string) : ""))
    .filter((t) => t !== "")
    .join(" ");
}

/**
 * The refusal of a call the server refused with `text`: the text after the tool's result rules
 * (it is answered and kept for replay; upstream-excerpt.ts), cut to `MAX_UPSTREAM_TEXT`
 * characters, with what the rules did in words; and their findings, for the audit's note.
 */
function rejected(
  name: string,
  text: string,
  rules: ResolvedRules,
): { refusal: Refusal; findings?: readonly GuardFinding[] } {
  const guarded = upstreamErrorText(text, rules);
  const detail = `${name} refused the call: ${cutChars(guarded.text)}`;
  if (guarded.findings.length === 0) return { refusal: refuse("upstream_rejected", detail) };
  const notice = noticeOf(guarded.findings);
  return {
    refusal: refuse("upstream_rejected", `${detail} ${notice}`),
    findings: guarded.findings,
  };
}

function cutChars(text: string): string {
  if (text === "") return "(no text)";
  const chars = Array.from(text);
  return chars.length <= MAX_UPSTREAM_TEXT
    ? text
    : `${chars.slice(0, MAX_UPSTREAM_TEXT).join("")}… (${chars.length - MAX_UPSTREAM_TEXT} more characters)`;
}
