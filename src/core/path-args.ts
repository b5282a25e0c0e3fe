/**
 * Arguments that are filled into an upstream's URL path. A value that is empty, `.` or `..`
 * would make a dot segment (RFC 3986 §5.2.4 removes them, so the request reaches a parent or
 * sibling resource with the fence's credentials), and `%2e` is a dot too (RFC 3986 §6.2.2.2).
 * Many servers also decode `%2F` before routing, so a value holding `/` or `\` could add a
 * segment. Such values are refused at the gate, in every encoding, before any request exists.
 */
import type { ToolContract, Upstream } from "./contract.ts";
import type { ContractIssue } from "./reasons.ts";

/** `{name}` placeholders, as `fill()` replaces them. */
const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)\}/gi;

/** How many rounds of percent-decoding are looked through (an upstream may decode twice). */
const DECODE_ROUNDS = 3;

/** The URL template of an upstream, or null for one that has none. */
export function templateOf(upstream: Upstream): string | null {
  if (upstream.kind === "service") return upstream.path;
  if (upstream.kind === "http") return upstream.url;
  return null;
}

/** Each template's path arguments, parsed once: templates are the contracts', a fixed few. */
const PARSED = new Map<string, readonly string[]>();

/** Names of the arguments a template fills into the URL path (not the query). */
export function pathArgs(template: string): readonly string[] {
  let names = PARSED.get(template);
  if (names === undefined) {
    const path = template.split("?")[0] ?? "";
    names = [...path.matchAll(PLACEHOLDER)].map((m) => m[1] ?? "");
    PARSED.set(template, names);
  }
  return names;
}

/** Whether `value`, or any percent-decoding of it, is not a plain path segment. */
export function isUnsafeSegment(value: string): boolean {
  let current = value;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    if (current === "" || current === "." || current === ".." || /[/\\]/.test(current)) {
      return true;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return false;
    }
    if (decoded === current) return false;
    current = decoded;
  }
  return true;
}

/** One issue per path argument of the contract's upstream whose value is not a safe segment. */
export function pathArgIssues(contract: ToolContract, args: unknown): ContractIssue[] {
  const template = templateOf(contract.upstream);
  if (template === null) return [];
  const fields = (args ?? {}) as Record<string, unknown>;
  return pathArgs(template)
    .filter((name) => isUnsafeSegment(String(fields[name] ?? "")))
    .map((name) => ({
      path: name,
      message: `${name} is sent as a URL path segment: it may not be empty, "." or "..", nor hold "/" or "\\", in any encoding`,
      expected: "one path segment",
      received: JSON.stringify(String(fields[name] ?? "")).slice(0, 120),
    }));
}
