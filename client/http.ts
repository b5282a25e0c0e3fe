/**
 * One request to the fence: the bearer key, the retry loop for calls, and turning an answer
 * into data. A refusal of a helper route is thrown as a `FenceProblem`; a refused call is an
 * answer like any other and comes back as data.
 */
import { backoffMs, type RetryPolicy, retryAfterMs } from "./retry.ts";
import type { Problem } from "./wire.ts";

/** How the client reaches the fence. */
export interface Transport {
  /** Base URL of the fence, without a trailing slash. */
  url: string;
  /** The API key, sent as `Authorization: Bearer`. */
  key: string;
  /** The fetch to use. */
  fetch: typeof fetch;
  /** How calls are retried. */
  retry: RetryPolicy;
}

/** A helper route's refusal, thrown with the problem document the fence answered. */
export class FenceProblem extends Error {
  /** The problem details (RFC 9457) with the fence's `decision` and `reason`. */
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.reason}: ${problem.detail}`);
    this.name = "FenceProblem";
    this.problem = problem;
  }
}

/** An answer read as JSON, with its status and headers. */
export interface Answer {
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
}

/** Send one request with the key; the answer's body must be JSON (or problem+json). */
export async function send(t: Transport, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${t.key}`);
  const res = await t.fetch(`${t.url}${path}`, { ...init, headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`toolfence answered ${res.status} with a body that is not JSON`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Error(`toolfence answered ${res.status} with JSON that is not an object`);
  }
  return { status: res.status, headers: res.headers, body: body as Record<string, unknown> };
}

/** The answer of a helper route, or its refusal thrown as a `FenceProblem`. */
export async function sendOrThrow<T>(t: Transport, path: string, init?: RequestInit): Promise<T> {
  const answer = await send(t, path, init);
  if (answer.status >= 400) throw new FenceProblem(answer.body as unknown as Problem);
  return answer.body as T;
}

/**
 * Send a call, retrying while the fence says `retry` or the network failed, with backoff
 * and jitter that honour `Retry-After`, at most `attempts` times. `init` is sent unchanged
 * on every attempt: same body, same idempotency key.
 */
export async function sendWithRetry(
  t: Transport,
  path: string,
  init: RequestInit,
): Promise<Answer> {
  const { attempts } = t.retry;
  for (let attempt = 1; ; attempt++) {
    let answer: Answer | null = null;
    let failure: unknown = null;
    try {
      answer = await send(t, path, init);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      failure = error;
    }
    if (answer !== null && answer.body.decision !== "retry") return answer;
    const after =
      answer === null ? null : retryAfterMs(answer.headers.get("Retry-After"), Date.now());
    const wait = attempt < attempts ? backoffMs(t.retry, attempt, after) : null;
    if (wait === null) {
      if (answer !== null) return answer;
      throw failure;
    }
    await t.retry.sleep(wait);
  }
}
