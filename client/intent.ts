/**
 * The key of a mutation proposed through a framework adapter: the same run, tool and
 * arguments give the same key, so a model that repeats a mutation gets it replayed, never
 * applied twice (the rule the fence's MCP endpoint follows too).
 */
import { intentKey } from "./index.ts";

/** JSON with object keys sorted: RFC 8785's form for the plain JSON values arguments are. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The idempotency key of proposing `tool` with `args` in run `runId`. */
export function callKey(runId: string, tool: string, args: unknown): Promise<string> {
  return intentKey(runId, tool, canonicalJson(args));
}
