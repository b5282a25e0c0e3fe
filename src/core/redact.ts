/**
 * Redaction: what the audit keeps of a call whose contract marks arguments `sensitive`. Each
 * such value is replaced by `hmac-sha256:<hex>`, a keyed digest of its RFC 8785 form, so equal
 * values can be matched (by whoever holds the key) without being revealed. The real value
 * still reaches the tool and the cache key; only what the fence keeps about the call changes.
 * Pure: the digest function is passed in (the key is a secret of the HTTP edge).
 */
import { canonicalize } from "./canonical.ts";
import type { ToolContract } from "./contract.ts";

/** Prefix of a redacted value. */
export const REDACTED_PREFIX = "hmac-sha256:";

/** A keyed digest of a text: lowercase hex HMAC-SHA256 (or null when no key is configured). */
export type Digest = (text: string) => string | null;

/** What stands for a value when no key is configured: never the value, never matchable. */
export const UNKEYED = "redacted";

/** The form a sensitive value takes in the audit. */
export function redactedValue(value: unknown, digest: Digest): string {
  const hex = digest(canonicalize(value) ?? "null");
  return hex === null ? UNKEYED : `${REDACTED_PREFIX}${hex}`;
}

/** The contract's sensitive fields the arguments hold, each with the value sent. */
export function sensitivePresent(contract: ToolContract, args: unknown): [string, unknown][] {
  const names = contract.sensitive ?? [];
  if (names.length === 0 || typeof args !== "object" || args === null || Array.isArray(args)) {
    return [];
  }
  const fields = args as Record<string, unknown>;
  return names.filter((n) => Object.hasOwn(fields, n)).map((n) => [n, fields[n]]);
}

/** The arguments with each sensitive field replaced (the object itself when none is present). */
export function redactArgs(contract: ToolContract, args: unknown, digest: Digest): unknown {
  const present = sensitivePresent(contract, args);
  if (present.length === 0) return args;
  const copy = { ...(args as Record<string, unknown>) };
  for (const [name, value] of present) copy[name] = redactedValue(value, digest);
  return copy;
}

/** Every way a JSON string token of `value` can appear in a body: plain, and inside a string. */
function tokens(value: string): [string, string] {
  const once = JSON.stringify(value);
  return [once, JSON.stringify(once).slice(1, -1)];
}

/**
 * The received text with every JSON string token of a sensitive value replaced by its digest,
 * in whatever form the call came (the OpenAI form's `arguments` string holds it escaped once
 * more; a model's text holds it inside fenced JSON). A sensitive value that is not a string
 * has no token to replace safely, so then the whole text gives way to its digest. Answers the
 * text unchanged when the call carries no sensitive value.
 */
export function redactText(
  contract: ToolContract,
  args: unknown,
  text: string,
  digest: Digest,
): string {
  return redactValues(sensitivePresent(contract, args), text, digest);
}

/** Every name any of `contracts` marks sensitive (made once per set of contracts). */
export function sensitiveNames(contracts: ReadonlyMap<string, ToolContract>): ReadonlySet<string> {
  let names = namesOf.get(contracts);
  if (names === undefined) {
    names = new Set([...contracts.values()].flatMap((c) => c.sensitive ?? []));
    namesOf.set(contracts, names);
  }
  return names;
}
const namesOf = new WeakMap<ReadonlyMap<string, ToolContract>, ReadonlySet<string>>();

/** Every member of `value`, at any depth, whose name is in `names`, with its value. */
export function namedAnywhere(names: ReadonlySet<string>, value: unknown): [string, unknown][] {
  const found: [string, unknown][] = [];
  // The strict parser bounds the nesting of whatever reaches here (MAX_JSON_DEPTH).
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    for (const [name, inner] of Object.entries(node)) {
      if (!Array.isArray(node) && names.has(name)) found.push([name, inner]);
      else visit(inner);
    }
  };
  if (names.size > 0) visit(value);
  return found;
}

/**
 * The received text of a call the gate refused, its arguments unvalidated: every member named
 * in `names`, at any depth, is redacted as `redactText` redacts a contract's fields.
 */
export function redactNamed(
  names: ReadonlySet<string>,
  args: unknown,
  text: string,
  digest: Digest,
): string {
  return redactValues(namedAnywhere(names, args), text, digest);
}

function redactValues(present: [string, unknown][], text: string, digest: Digest): string {
  if (present.length === 0) return text;
  if (present.some(([, value]) => typeof value !== "string")) return digestOfText(text, digest);
  let out = text;
  for (const [, value] of present) {
    const replacement = redactedValue(value, digest);
    for (const token of tokens(value as string)) {
      const quoted = token.startsWith('"') ? `"${replacement}"` : `\\"${replacement}\\"`;
      out = out.split(token).join(quoted);
    }
  }
  return out;
}

/** A whole body as its digest: for a body kept as a digest only (`audit_unparsed: "digest"`). */
export function digestOfText(text: string, digest: Digest): string {
  const hex = digest(text);
  return hex === null ? UNKEYED : `${REDACTED_PREFIX}${hex}`;
}
