/**
 * Reading a request body within a byte bound, as UTF-8 or not at all.
 */
import { type Refusal, refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";

/**
 * Read a request body as UTF-8 text, refusing it as soon as it passes `maxBytes`: a
 * declared Content-Length is checked first, then the stream is counted as it arrives,
 * so a lying or absent length cannot make the worker buffer more.
 */
export async function readBody(
  request: Request,
  maxBytes: number,
): Promise<Result<string, Refusal>> {
  const length = request.headers.get("Content-Length");
  const declared = Number(length ?? "0");
  const tooLarge = () =>
    err(refuse("payload_too_large", `The body is larger than ${maxBytes} bytes.`));
  if (declared > maxBytes) return tooLarge();
  if (request.body === null) return ok("");
  // A declared length binds the body (the runtime refuses a body that runs past it), so
  // it is read in one go; without one, the stream is counted as it arrives.
  if (length !== null && /^\d+$/.test(length))
    return utf8(new Uint8Array(await request.arrayBuffer()));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8(bytes);
}

/**
 * Strict UTF-8: a one-shot decode keeps no state between calls, so one decoder serves all. A
 * leading byte order mark is kept as U+FEFF, not skipped: RFC 8259 §8.1 forbids one before a
 * networked JSON text, so the strict parser refuses it (malformed_payload) on every door alike,
 * and the audit keeps the text as received.
 */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function utf8(bytes: Uint8Array): Result<string, Refusal> {
  try {
    return ok(STRICT_UTF8.decode(bytes));
  } catch {
    return err(refuse("malformed_payload", "The body is not valid UTF-8 (RFC 8259 §8.1)."));
  }
}
