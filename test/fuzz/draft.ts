import fc from "fast-check";
import { KEY_POOL, type ToolSpec, validArgs } from "./tools.ts";

/** A generated call before (a draft) and after it is written as an HTTP request. */

/** One generated HTTP call. */
export interface FuzzCall {
  /** Which generator made it, for reports and failing examples. */
  kind: string;
  /** Whether the call keeps every contract; invalid calls must never be applied. */
  valid: boolean;
  /** The tool it names (or nearly names), or null for junk. */
  tool: string | null;
  /** Content-Type header, or null to send none. */
  contentType: string | null;
  /** Extra request headers. */
  headers: Record<string, string>;
  /** Body text. */
  body: string;
}

/** The shapes a call can arrive in (src/core/body.ts). */
export type Form = "canonical" | "openai" | "anthropic" | "text";

/** A call before it is encoded: mutated members are written over the valid ones. */
export interface Draft {
  /** Tool name as it will be sent. */
  tool: string;
  /** Arguments as they will be sent. */
  args: unknown;
  /** Idempotency key, or undefined for none. */
  key: unknown;
  /** The body form. */
  form: Form;
  /** Whether the key goes in the `Idempotency-Key` header rather than the body. */
  keyInHeader: boolean;
  /** Extra envelope members. */
  extra: Record<string, unknown>;
}

export const JSON_TYPE = "application/json";

export function draftOf(tool: ToolSpec): fc.Arbitrary<Draft> {
  return fc.record({
    tool: fc.constant(tool.name),
    args: validArgs(tool),
    key: tool.mutates ? fc.constantFrom(...KEY_POOL) : fc.constant(undefined),
    form: fc.constantFrom<Form>("canonical", "canonical", "openai", "anthropic", "text"),
    keyInHeader: fc.boolean(),
    extra: fc.constant({}),
  });
}

/** The envelope of a draft in its form; text bodies carry the canonical form. */
export function envelope(d: Draft): Record<string, unknown> {
  const bodyKey = d.key === undefined || d.keyInHeader ? {} : { idempotency_key: d.key };
  if (d.form === "openai") {
    const fn = { name: d.tool, arguments: JSON.stringify(d.args) };
    return { type: "function", id: "call_1", function: fn, ...d.extra };
  }
  if (d.form === "anthropic") {
    return { type: "tool_use", id: "toolu_1", name: d.tool, input: d.args, ...d.extra };
  }
  return { tool: d.tool, args: d.args, ...bodyKey, ...d.extra };
}

/** Keys of the body forms that cannot carry one travel in the header. */
export function encode(d: Draft, kind: string, valid: boolean): FuzzCall {
  const inHeader = d.keyInHeader || d.form === "openai" || d.form === "anthropic";
  const headers: Record<string, string> =
    inHeader && typeof d.key === "string" ? { "Idempotency-Key": d.key } : {};
  const body = JSON.stringify(envelope({ ...d, keyInHeader: inHeader }));
  const contentType = d.form === "text" ? "text/plain" : JSON_TYPE;
  return { kind, valid, tool: d.tool, contentType, headers, body };
}
