import type { FuzzCall } from "./arbitraries.ts";

/** Reasons and successes a fence answer may carry (DESIGN.md's decision table). */
export const SUCCESSES: ReadonlySet<string> = new Set(["applied", "replayed", "cached"]);

/**
 * The request for one generated call. The body goes as bytes: a string body would get a
 * default `text/plain;charset=UTF-8` from the Fetch standard, and a call generated without
 * a Content-Type must arrive without one.
 */
export function requestInit(call: FuzzCall, extra: Record<string, string> = {}): RequestInit {
  const headers: Record<string, string> = { ...extra, ...call.headers };
  if (call.contentType !== null) headers["Content-Type"] = call.contentType;
  return { method: "POST", headers, body: new TextEncoder().encode(call.body) };
}

/** A model's text call as the generators write it: JSON, alone or in one code fence. */
const FENCED = /^\s*```[A-Za-z]*\n([\s\S]*)\n```\s*$/;

/**
 * The idempotency key a generated call carries, if it is a string: in the header, or in the
 * body's JSON, inside a model's code fence too.
 */
export function keyOf(call: FuzzCall): string | null {
  const header = call.headers["Idempotency-Key"];
  if (header !== undefined) return header;
  const json = FENCED.exec(call.body)?.[1] ?? call.body;
  try {
    const key: unknown = (JSON.parse(json) as { idempotency_key?: unknown }).idempotency_key;
    return typeof key === "string" ? key : null;
  } catch {
    return null;
  }
}
