/**
 * The secret formats the `secrets` result rule finds: gitleaks' default rule set
 * (github.com/gitleaks/gitleaks, `config/gitleaks.toml`, MIT License), vendored as
 * `gitleaks.toml` beside this file, and the fence's own rules in the same format
 * (`fence-secrets.toml`), both converted to JavaScript by `npm run secret-rules` into
 * `secret-rules.json`. A rule's pattern runs only where one of its keywords occurs, as
 * gitleaks runs it; its secret must reach the rule's entropy, and is dropped when an allowlist
 * (the rule's or the global one) takes it for a placeholder, a variable or an example.
 */
import RULES from "./secret-rules.json" with { type: "json" };

/** A pattern as data: JavaScript source and flags. */
export interface PatternData {
  /** The RegExp source. */
  regex: string;
  /** Its flags, beside the `g` and `d` every pattern gets ("i", "s", "is"). */
  flags?: string;
}

/** What a gitleaks allowlist checks; an allowlist that only names file paths is not kept. */
export interface AllowlistData {
  /** What the patterns are tried on: the secret (the default), the whole match or its line. */
  target?: "match" | "line";
  /** A secret, match or line one of these finds is not reported. */
  regexes?: readonly PatternData[];
  /** A secret holding one of these words (lower case) is not reported. */
  stopwords?: readonly string[];
}

/** One secret format, as gitleaks writes it. */
export interface SecretRuleData extends PatternData {
  /** gitleaks' rule id, or the fence's own. */
  id: string;
  /** The capture group that is the secret; else the first group that matched, else the match. */
  secretGroup?: number;
  /** The least Shannon entropy (bits per character) of a secret. */
  entropy?: number;
  /** Lower-case words one of which the text must hold for the pattern to run; none: always. */
  keywords: readonly string[];
  /** Matches these take for no secret. */
  allowlists?: readonly AllowlistData[];
}

/** A converted rule file. */
export interface SecretRuleSet {
  /** Where the rules come from: repository and commit. */
  source: string;
  /** Parts many patterns share, written `(?&name)` in them (neither RE2 nor RegExp syntax). */
  fragments: Readonly<Record<string, string>>;
  /** The allowlist every rule shares. */
  allowlist: AllowlistData;
  /** The rules. */
  rules: readonly SecretRuleData[];
  /** The rules of the files that were not converted, and why. */
  leftOut: readonly { id: string; why: string }[];
}

/** The converted rule set the worker runs. */
export const SECRET_RULE_SET = RULES as SecretRuleSet;

/**
 * A secret one rule found, in UTF-16 code units: a detector's `Span` (detectors.ts, which
 * imports this module, so the shape is spelled here).
 */
export interface SecretSpan {
  /** The detector kind. */
  kind: "secrets";
  /** The rule's id. */
  what: string;
  /** First code unit of the secret. */
  start: number;
  /** One past its last code unit. */
  end: number;
}

interface Allowlist {
  target: "secret" | "match" | "line";
  regexes: readonly RegExp[];
  stopwords: readonly string[];
}

interface Rule {
  data: SecretRuleData;
  allowlists: readonly Allowlist[];
  /** Built at the first text holding a keyword: most rules never run in one isolate. */
  pattern?: RegExp;
}

function allowlistOf(a: AllowlistData): Allowlist {
  return {
    target: a.target ?? "secret",
    regexes: (a.regexes ?? []).map((p) => new RegExp(p.regex, p.flags ?? "")),
    stopwords: a.stopwords ?? [],
  };
}

/** A keyword and the rules (by index) it lets run. */
interface Keyword {
  word: string;
  rules: number[];
}

/**
 * The rules, and their keywords indexed by their first two characters, so one pass over a
 * text finds every keyword it holds (every gitleaks keyword is ASCII, of two characters or
 * more; a rule with another keyword always runs).
 */
interface Compiled {
  rules: readonly Rule[];
  /**
   * Whether a keyword starts with the two ASCII characters `a * 128 + b`: read for every pair
   * of characters of every string scanned, so an array, not the map below.
   */
  pairs: Uint8Array;
  /** The keywords by their first two ASCII characters `a` and `b`, as `a * 128 + b`. */
  byPair: ReadonlyMap<number, readonly Keyword[]>;
  always: readonly number[];
  global: Allowlist;
}

let compiledSet: Compiled | undefined;

const ASCII_KEYWORD = /^[ -~]{2,}$/;

function compiled(): Compiled {
  if (compiledSet !== undefined) return compiledSet;
  const rules = SECRET_RULE_SET.rules.map((data) => ({
    data,
    allowlists: (data.allowlists ?? []).map(allowlistOf),
  }));
  const words = new Map<string, Keyword>();
  const always: number[] = [];
  for (const [n, { data }] of rules.entries()) {
    const usable = data.keywords.filter((w) => ASCII_KEYWORD.test(w));
    if (usable.length < data.keywords.length || usable.length === 0) always.push(n);
    for (const word of usable) {
      const k = words.get(word) ?? { word, rules: [] };
      k.rules.push(n);
      words.set(word, k);
    }
  }
  const pairs = new Uint8Array(128 * 128);
  const byPair = new Map<number, Keyword[]>();
  for (const k of words.values()) {
    const pair = k.word.charCodeAt(0) * 128 + k.word.charCodeAt(1);
    pairs[pair] = 1;
    byPair.set(pair, [...(byPair.get(pair) ?? []), k]);
  }
  compiledSet = { rules, pairs, byPair, always, global: allowlistOf(SECRET_RULE_SET.allowlist) };
  return compiledSet;
}

/** The rules a text lets run: those with a keyword in it, in rule order. */
function rulesFor(text: string, c: Compiled): number[] {
  const lower = text.toLowerCase();
  const run = new Set(c.always);
  const seen = new Set<string>();
  for (let i = 0; i + 1 < lower.length; i++) {
    const a = lower.charCodeAt(i);
    const b = lower.charCodeAt(i + 1);
    if (a >= 128 || b >= 128 || c.pairs[a * 128 + b] === 0) continue;
    for (const k of c.byPair.get(a * 128 + b) ?? []) {
      if (seen.has(k.word) || !lower.startsWith(k.word, i)) continue;
      seen.add(k.word);
      for (const n of k.rules) run.add(n);
    }
  }
  return [...run].sort((a, b) => a - b);
}

/** A pattern with its shared parts (`(?&name)`) written out. */
export function expandFragments(regex: string): string {
  return regex.replace(/\(\?&(\w+)\)/g, (_, name: string) => SECRET_RULE_SET.fragments[name] ?? "");
}

/** Counts of the ASCII characters of one secret, reused: entropy is taken once per match. */
const ASCII_COUNTS = new Int32Array(128);

/**
 * Shannon entropy of `s`, in bits per character, as gitleaks computes it (over UTF-16 code
 * units here, over bytes there: the same for the ASCII every token format is made of).
 */
export function shannonEntropy(s: string): number {
  const distinct: number[] = [];
  let others: Map<number, number> | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) {
      others ??= new Map();
      others.set(c, (others.get(c) ?? 0) + 1);
      continue;
    }
    if (ASCII_COUNTS[c] === 0) distinct.push(c);
    ASCII_COUNTS[c] = (ASCII_COUNTS[c] ?? 0) + 1;
  }
  let bits = 0;
  const add = (count: number) => {
    bits -= (count / s.length) * Math.log2(count / s.length);
  };
  for (const c of distinct) {
    add(ASCII_COUNTS[c] ?? 0);
    ASCII_COUNTS[c] = 0;
  }
  others?.forEach(add);
  return bits;
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const to = text.indexOf("\n", end);
  return text.slice(from, to < 0 ? text.length : to);
}

function allowed(a: Allowlist, secret: string, match: string, line: () => string): boolean {
  const target = a.target === "secret" ? secret : a.target === "match" ? match : line();
  if (a.regexes.some((r) => r.test(target))) return true;
  const lower = secret.toLowerCase();
  return a.stopwords.some((w) => lower.includes(w));
}

/** The secret of one match: the rule's group, else the first group that matched, else all. */
function secretOf(m: RegExpExecArray, group: number | undefined): [number, number] {
  const indices = m.indices ?? [];
  const at =
    group !== undefined
      ? indices[group]
      : indices.slice(1).find((g) => g !== undefined && g[1] > g[0]);
  return at ?? [m.index, m.index + m[0].length];
}

/** Every secret of `text`, by the rules whose keywords it holds. */
export function findSecrets(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  const c = compiled();
  for (const n of rulesFor(text, c)) {
    const rule = c.rules[n] as Rule;
    const { data } = rule;
    rule.pattern ??= new RegExp(expandFragments(data.regex), `${data.flags ?? ""}dg`);
    for (const m of text.matchAll(rule.pattern)) {
      const [start, end] = secretOf(m, data.secretGroup);
      const secret = text.slice(start, end);
      // gitleaks keeps a secret only above the rule's entropy.
      if (data.entropy !== undefined && shannonEntropy(secret) <= data.entropy) continue;
      const line = () => lineAround(text, m.index, m.index + m[0].length);
      if ([c.global, ...rule.allowlists].some((a) => allowed(a, secret, m[0], line))) continue;
      found.push({ kind: "secrets", what: data.id, start, end });
    }
  }
  return found;
}
