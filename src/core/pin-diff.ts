/**
 * An MCP tool's pinned listing against what its server lists now, for a reviewer: both as
 * pretty, key-sorted JSON lines, and the lines found in only one of them.
 */

/** A tool's listing as the pin holds it: description, input schema, output schema if any. */
export function pinnedViewOf(tool: {
  description?: string | undefined;
  inputSchema: unknown;
  outputSchema?: unknown;
}): Record<string, unknown> {
  const view: Record<string, unknown> = {
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema !== undefined) view.outputSchema = tool.outputSchema;
  return view;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : 1));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

/** `value` as pretty JSON with sorted keys, one line per element. */
export function prettyLines(value: unknown): string[] {
  return JSON.stringify(sortKeys(value), null, 2).split("\n");
}

/** The lines (trimmed) of `before` missing from `after` (`- `), then those new in it (`+ `). */
export function lineDiff(before: unknown, after: unknown): string[] {
  const a = prettyLines(before).map((l) => l.trim());
  const b = prettyLines(after).map((l) => l.trim());
  const inA = new Set(a);
  const inB = new Set(b);
  return [
    ...a.filter((l) => !inB.has(l)).map((l) => `- ${l}`),
    ...b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`),
  ];
}
