/**
 * What a caller sent that telemetry carries (a tool name, a JSON-RPC request id), made fit for
 * a backend that indexes every attribute and keeps one metric series per label value: short,
 * and printable, so it can neither bloat a span nor hide or reorder what an operator reads.
 */

/** Most UTF-16 units of a caller's text in a span, a label or the decision log line. */
export const MAX_CALLER_TEXT = 128;

/**
 * What spans and metrics name a tool no contract has: never a tool name as contracts spell
 * them (`[a-z][a-z0-9_]*`, as `contracts import` writes them and key records allow).
 */
export const UNKNOWN_TOOL = "(unknown)";

/**
 * Control, format (bidi overrides, zero-width), lone surrogate and line or paragraph separator
 * characters (Unicode general categories Cc, Cf, Cs, Zl, Zp).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** `text` cut to MAX_CALLER_TEXT units (marked `…`), each hidden character shown as U+FFFD. */
export function callerText(text: string): string {
  const cut = text.length > MAX_CALLER_TEXT;
  // Cut first: the rest of a 60 KB name is never scanned. A pair split by the cut is a lone
  // surrogate, and shown as U+FFFD like any other.
  const kept = cut ? text.slice(0, MAX_CALLER_TEXT) : text;
  return `${kept.replace(HIDDEN, "\uFFFD")}${cut ? "…" : ""}`;
}

/**
 * The tool as spans and metrics label it: its contract's name, or UNKNOWN_TOOL when the gate
 * found no contract of that name (the refusal `unknown_tool`); null when no name was read.
 */
export function toolLabel(tool: string | undefined, reason: string | null): string | null {
  if (tool === undefined) return null;
  return reason === "unknown_tool" ? UNKNOWN_TOOL : callerText(tool);
}
