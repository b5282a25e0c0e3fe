/**
 * What the fence keeps of an upstream's answer when a call fails or escalates because of it:
 * its status and a bounded excerpt of its text, redacted as the audit redacts a call (the
 * contract's sensitive fields, and every value of them the call sent) and as the result rules
 * redact an answer (secrets and payment cards always), so an error body that echoes a token is
 * never stored. And what the agent reads of an upstream's own refusal (an MCP error text, what
 * a refusal quotes of an answer outside its contract): the text after the tool's result rules.
 * Pure: the digest is passed in, as for the payload (redact.ts).
 */
import { canonicalize } from "./canonical.ts";
import type { ToolContract } from "./contract.ts";
import {
  GUARD_RULES,
  type GuardAction,
  type GuardRuleName,
  type ResolvedRule,
  type ResolvedRules,
  STRICTNESS,
} from "./guardrails/rules.ts";
import { type GuardFinding, guardResult } from "./guardrails/scan.ts";
import type { Refusal } from "./reasons.ts";
import { type Digest, redactedValue, sensitivePresent } from "./redact.ts";
import type { UpstreamAnswer } from "./shapes/audit.ts";

/** Most UTF-8 bytes of an upstream's answer the audit keeps. */
export const UPSTREAM_EXCERPT_MAX_BYTES = 2_048;

/** An upstream's failed answer as it came, held in memory only until it is excerpted. */
export interface UpstreamReply {
  /** The HTTP status it answered with, or null when no answer came (a timeout, a lost connection). */
  status: number | null;
  /** The JSON-RPC error code of an MCP server's error answer. */
  rpcCode?: number;
  /** Set when an MCP tool's result came back with `isError`. */
  isError?: boolean;
  /** The answer's text, or its beginning when it was not read whole; null when none was read. */
  text: string | null;
  /**
   * The answer's size in bytes when `text` is only its beginning (as far as it was read, or as
   * its Content-Length declared); absent when `text` is the whole answer.
   */
  bytes?: number;
}

/** What the call sent and what its tool's rules are: what the excerpt is redacted by. */
export interface ExcerptScope {
  /** The tool's contract: its `sensitive` fields. */
  contract: ToolContract;
  /** The validated arguments sent: a sensitive value among them is never kept. */
  args: unknown;
  /** The tool's result rules (src/core/guardrails/of-fence.ts). */
  rules: ResolvedRules;
  /** The keyed digest a sensitive value becomes. */
  digest: Digest;
}

/** The reply as the audit keeps it: status, the redacted text cut to its bound, its full size. */
export function upstreamExcerpt(reply: UpstreamReply, scope: ExcerptScope): UpstreamAnswer {
  const redacted = reply.text === null ? "" : redactedText(reply.text, scope);
  const excerpt = cutUtf8(redacted, UPSTREAM_EXCERPT_MAX_BYTES);
  const read = reply.text === null ? 0 : utf8Length(reply.text);
  // An oversized answer's text is only its beginning: its size is what was seen of it.
  const bytes = reply.bytes ?? read;
  return {
    status: reply.status,
    ...(reply.rpcCode === undefined ? {} : { rpc_error_code: reply.rpcCode }),
    ...(reply.isError === true ? { is_error: true } : {}),
    excerpt,
    bytes,
    truncated: excerpt.length < redacted.length || read < bytes,
  };
}

/**
 * Rules derived from a tool's, each rule's action chosen by `action`, in every field; made once
 * per tool's rules (`cache`): resolved rules never change once made (guardrails/of-fence.ts).
 */
function derivedRules(
  rules: ResolvedRules,
  cache: WeakMap<ResolvedRules, ResolvedRules>,
  action: (name: GuardRuleName, rule: ResolvedRule) => GuardAction,
): ResolvedRules {
  const known = cache.get(rules);
  if (known !== undefined) return known;
  const out: Partial<Record<GuardRuleName, ResolvedRule>> = {};
  for (const name of GUARD_RULES) {
    out[name] = { ...rules[name], action: action(name, rules[name]), fields: null };
  }
  const made = out as ResolvedRules;
  cache.set(rules, made);
  return made;
}

/** Secrets and payment cards: never kept or answered in clear, whatever a tool's rules say. */
const ALWAYS_REDACTED: ReadonlySet<GuardRuleName> = new Set(["secrets", "payment_card"]);

const excerptRulesOf = new WeakMap<ResolvedRules, ResolvedRules>();

/**
 * The rules an excerpt passes: whatever the tool's rules redact or block is redacted (an
 * excerpt cannot be withheld, and is kept in any case), secrets and payment cards always, in
 * every field; a flag changes nothing kept, so it is left out.
 */
function excerptRules(rules: ResolvedRules): ResolvedRules {
  return derivedRules(rules, excerptRulesOf, (name, rule) => {
    const redacts =
      name !== "oversized_field" && (rule.action === "redact" || rule.action === "block");
    return ALWAYS_REDACTED.has(name) || redacts ? "redact" : "allow";
  });
}

/**
 * `value` after the excerpt rules of a tool's `rules`. They only redact, so nothing is
 * withheld, and the value keeps its shape: a string comes back a string.
 */
function excerptRedacted<T>(value: T, rules: ResolvedRules): T {
  return (guardResult(value, excerptRules(rules)) as { result: T }).result;
}

const errorTextRulesOf = new WeakMap<ResolvedRules, ResolvedRules>();

/**
 * The rules an upstream's error text passes before the agent reads it: the tool's own, in the
 * whole text, secrets and payment cards at least redacted; the text is cut to its own bound.
 */
function errorTextRules(rules: ResolvedRules): ResolvedRules {
  return derivedRules(rules, errorTextRulesOf, (name, rule) => {
    if (name === "oversized_field") return "allow";
    if (
      ALWAYS_REDACTED.has(name) &&
      STRICTNESS.indexOf(rule.action) < STRICTNESS.indexOf("redact")
    ) {
      return "redact";
    }
    return rule.action;
  });
}

/**
 * An upstream's error text (an MCP `isError` result's text, a JSON-RPC error's message) as the
 * agent may read it, through the tool's result rules as a result goes: redacted and flagged
 * where they say, and withheld, naming the rules, where one blocks. With what they found.
 */
export function upstreamErrorText(
  text: string,
  rules: ResolvedRules,
): { text: string; findings: GuardFinding[] } {
  const out = guardResult(text, errorTextRules(rules));
  if (!out.blocked) return { text: out.result as string, findings: out.findings };
  return {
    text: `(withheld by the result rules (${rulesOf(out.findings)}))`,
    findings: out.findings,
  };
}

/** The rules and what they found, never a value: `model_addressed override, secrets github-pat`. */
function rulesOf(findings: readonly GuardFinding[]): string {
  return findings.map((f) => `${f.rule} ${f.what}`).join(", ");
}

/**
 * A refusal that echoes what an upstream answered (its output outside the contract: the
 * paths, unknown member names and values it quotes) through the rules of `upstreamErrorText`;
 * where one blocks, the refusal says only that the answer broke the contract. With what they found.
 */
export function guardedRefusal(
  refusal: Refusal,
  rules: ResolvedRules,
): { refusal: Refusal; findings: GuardFinding[] } {
  const texts = { detail: refusal.detail, issues: refusal.issues ?? [] };
  const out = guardResult(texts, errorTextRules(rules));
  if (!out.blocked) {
    const kept = out.result as typeof texts;
    const issues = refusal.issues === undefined ? {} : { issues: kept.issues };
    return { refusal: { ...refusal, detail: kept.detail, ...issues }, findings: out.findings };
  }
  const detail = `The answer broke the output contract; what this refusal would quote of it is withheld by the result rules (${rulesOf(out.findings)}).`;
  return { refusal: { reason: refusal.reason, detail }, findings: out.findings };
}

function redactedText(text: string, scope: ExcerptScope): string {
  const parsed = parsedJson(text);
  const shaped =
    parsed === undefined
      ? text
      : JSON.stringify(excerptRedacted(bySensitiveName(parsed, scope), scope.rules));
  return excerptRedacted(withoutSentValues(shaped, scope), scope.rules);
}

/** The answer as JSON when it is a JSON object or array, else undefined. */
function parsedJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `value` with every member named as one of the contract's sensitive fields redacted, at any depth. */
function bySensitiveName(value: unknown, scope: ExcerptScope): unknown {
  const names = scope.contract.sensitive ?? [];
  if (names.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== "object" || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      out[k] = names.includes(k) ? redactedValue(item, scope.digest) : walk(item);
    }
    return out;
  };
  return walk(value);
}

/**
 * `text` with every sensitive value the call sent replaced by its digest wherever it appears,
 * as sent or as JSON escapes it: an error text may repeat it outside any named field.
 */
function withoutSentValues(text: string, scope: ExcerptScope): string {
  let out = text;
  for (const [, value] of sensitivePresent(scope.contract, scope.args)) {
    const replacement = redactedValue(value, scope.digest);
    for (const needle of needlesOf(value)) out = out.split(needle).join(replacement);
  }
  return out;
}

/** The forms a sent value takes in a text: a string as it is and JSON-escaped; else its JSON. */
function needlesOf(value: unknown): string[] {
  if (typeof value === "string") {
    const escaped = JSON.stringify(value).slice(1, -1);
    return [value, escaped].filter((n, i, all) => n !== "" && all.indexOf(n) === i);
  }
  if (typeof value === "number" || (typeof value === "object" && value !== null)) {
    return [canonicalize(value) ?? ""].filter((n) => n !== "");
  }
  return [];
}

const encoder = new TextEncoder();

function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/** `text` cut to at most `max` UTF-8 bytes on a code point boundary (RFC 3629 §3). */
export function cutUtf8(text: string, max: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most texts need no encoding to know.
  if (text.length * 3 <= max) return text;
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= max) return text;
  let end = max;
  // UTF-8 continuation bytes are 10xxxxxx: back up to the start of a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}
