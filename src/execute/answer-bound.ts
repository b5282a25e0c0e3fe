/**
 * Reading an upstream's answer with a byte bound, counted while it streams: an answer is never
 * read whole before its size is known, so a 30 MB answer costs the isolate the bound, not 30 MB.
 */

import { UPSTREAM_EXCERPT_MAX_BYTES } from "../core/upstream-excerpt.ts";

/**
 * Bytes of an answer's beginning kept for its excerpt: more than the excerpt keeps, so a
 * secret that crosses the excerpt's end is still whole when the excerpt is redacted.
 */
const HEAD_BYTES = UPSTREAM_EXCERPT_MAX_BYTES * 8;

/** Thrown when an answer passes its bound; `seen` is the bytes counted (or declared) by then. */
export class AnswerTooLarge extends Error {
  override readonly name = "AnswerTooLarge";
  constructor(
    /** The most bytes the answer may have. */
    readonly limit: number,
    /** Bytes received, or the Content-Length declared, when the bound was passed. */
    readonly seen: number,
    /** The HTTP status the answer came with, when known. */
    readonly status: number | null = null,
    /** The answer's first bytes as text (at most HEAD_BYTES), or null when none was read. */
    readonly head: string | null = null,
  ) {
    super(`the answer passed ${limit} bytes (${seen} seen)`);
  }
}

/** The Content-Length an answer declares (RFC 9110 §8.6), or null. */
function declaredLength(headers: Headers): number | null {
  const value = headers.get("Content-Length");
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/**
 * `response` with its body counted as it streams: past `limit` bytes the body errors with
 * AnswerTooLarge (and `over` is called with it), so whoever reads it, the fence or a library,
 * stops there. A declared length past the bound fails at once, before any byte is read.
 */
export function boundedResponse(
  response: Response,
  limit: number,
  over: (e: AnswerTooLarge) => void = () => undefined,
): Response {
  const declared = declaredLength(response.headers);
  if (declared !== null && declared > limit) {
    const e = new AnswerTooLarge(limit, declared, response.status);
    over(e);
    response.body?.cancel().catch(() => undefined);
    throw e;
  }
  if (response.body === null) return response;
  let seen = 0;
  const head: Uint8Array[] = [];
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (seen < HEAD_BYTES) head.push(chunk.subarray(0, HEAD_BYTES - seen));
      seen += chunk.byteLength;
      if (seen > limit) {
        const decoder = new TextDecoder();
        const text =
          head.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
        const e = new AnswerTooLarge(limit, seen, response.status, text);
        over(e);
        controller.error(e);
        return;
      }
      controller.enqueue(chunk);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(response.body.pipeThrough(counter), { status, statusText, headers });
}

/**
 * Thrown when an answer's body fails after its status and headers came (the connection
 * dropped mid-stream): the upstream answered, so it may have acted.
 */
export class AnswerCut extends Error {
  override readonly name = "AnswerCut";
  constructor(
    /** The HTTP status the answer came with. */
    readonly status: number,
    /** The part of the body received, as text. */
    readonly head: string,
    /** Bytes of the body received. */
    readonly seen: number,
    /** What failed the stream. */
    override readonly cause: unknown,
  ) {
    super(`the answer (HTTP ${status}) was cut after ${seen} bytes`);
  }
}

/**
 * The answer's body as UTF-8 text (decoded as `Response.text()` does), read with `limit`;
 * throws AnswerTooLarge past it, and AnswerCut with the part received when the body fails.
 */
export async function readBounded(response: Response, limit: number): Promise<string> {
  let passed: AnswerTooLarge | null = null;
  const body = boundedResponse(response, limit, (e) => {
    passed = e;
  }).body;
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      seen += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch (e) {
    // The stream's error may reach the reader wrapped; the bound's own error says what happened.
    throw passed ?? new AnswerCut(response.status, text + decoder.decode(), seen, e);
  }
}
