/**
 * Secrets in the formats secretlint's recommended rules know (@secretlint/secretlint-rule-
 * preset-recommend, MIT): every pattern literal of its bundled rules, generated from (randexp,
 * seeded), each kept only where secretlint itself (@secretlint/core with that preset) reports
 * it. Another project's definitions of the same providers' formats, not gitleaks' the fence
 * runs, and what secretlint calls a secret decides the label.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { lintSource } from "@secretlint/core";
import { creator } from "@secretlint/secretlint-rule-preset-recommend";
import RandExp from "randexp";
import type { Corpus, Sample } from "./corpus.ts";

const PRESET = "@secretlint/secretlint-rule-preset-recommend";
const BUNDLE = "module/index.js";
/** Samples generated from each pattern. */
const PER_PATTERN = 24;
/** Tries per sample kept. */
const ATTEMPTS = 20;
/** Patterns that find no secret but the context secretlint ignores (its own comment syntax). */
const NOT_SECRETS = new Set(["REGEXP_LITERAL_PATTERN", "HTML_COMMENT_REGEXP"]);
/** Reports of secretlint that name no secret: an AWS account id is an identifier. */
const NOT_SECRET_MESSAGES = new Set(["AWSAccountID"]);

/** A pattern literal assigned to a constant in the bundle: `const NAME = /…/flags;`. */
const LITERAL = /^\s*const (\w+) = \/(.+)\/([a-z]*);\s*$/;

/** Deterministic numbers (mulberry32): the same corpus from the same package. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * The pattern as randexp can generate from it: lookarounds dropped (they only bound a match),
 * named groups plain, and a bound above 100 repetitions cut to 100 more than its least (a
 * 10,000-character PEM body says no more than a 200-character one).
 */
function generable(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    if (source[i] === "\\") {
      out += source.slice(i, i + 2);
      i++;
      continue;
    }
    const look = /^\(\?<?[!=]/.exec(source.slice(i));
    if (look !== null) {
      let depth = 0;
      for (let j = i; j < source.length; j++) {
        if (source[j] === "\\") j++;
        else if (source[j] === "(") depth++;
        else if (source[j] === ")" && --depth === 0) {
          i = j;
          break;
        }
      }
      continue;
    }
    out += source[i];
  }
  return out
    .replace(/\(\?<\w+>/g, "(")
    .replace(/\\b/g, "")
    .replace(
      /\{(\d+),(\d+)\}/g,
      (_, lo: string, hi: string) => `{${lo},${Math.min(Number(hi), Number(lo) + 100)}}`,
    );
}

/** Surroundings a tool's answer gives a value: alone, in a log line, in a config listing. */
const SETTINGS: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => `2024-05-01T10:00:00Z INFO loaded ${s} for the job`,
  (s) => `value: ${s}`,
];

export async function secretlintFormats(): Promise<Corpus[]> {
  const require = createRequire(import.meta.url);
  const root = require.resolve(`${PRESET}/package.json`).replace(/package\.json$/, "");
  const version = (JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string })
    .version;
  const literals = readFileSync(`${root}${BUNDLE}`, "utf8")
    .split("\n")
    .flatMap((line) => {
      const m = LITERAL.exec(line);
      return m === null || NOT_SECRETS.has(m[1] ?? "") ? [] : [m[2] ?? ""];
    });
  const random = seeded(63);
  const samples: Sample[] = [];
  const seen = new Set<string>();
  for (const [n, literal] of literals.entries()) {
    const generator = new RandExp(generable(literal));
    generator.max = 4;
    generator.randInt = (from: number, to: number) => from + Math.floor(random() * (to - from + 1));
    // Printable ASCII: what a provider's token is made of.
    generator.defaultRange.subtract(0, 31);
    generator.defaultRange.subtract(127, 0x10ffff);
    // A rule that also checks a length or a checksum takes few of what its pattern allows.
    let kept = 0;
    for (let i = 0; i < PER_PATTERN * ATTEMPTS && kept < PER_PATTERN; i++) {
      const value = generator.gen();
      const text = SETTINGS[(n + i) % SETTINGS.length]?.(value) ?? value;
      if (seen.has(text)) continue;
      seen.add(text);
      const said = await secretlintSays(text);
      if (said === null) continue;
      samples.push({ text, positive: true, what: said.what, span: said.span });
      kept++;
    }
  }
  return [
    {
      name: "secretlint-formats",
      detector: "secrets",
      description:
        "Tokens, keys and connection strings generated from the patterns of secretlint's recommended rules, each one secretlint reports; alone, in a log line or after `value: `.",
      source: { package: PRESET, version, path: BUNDLE, licence: "MIT" },
      samples,
      encoded: true,
    },
  ];
}

/** The rule and message secretlint reports for `text`, and where, or null for none. */
async function secretlintSays(
  text: string,
): Promise<{ what: string; span: [number, number] } | null> {
  const result = await lintSource({
    source: { filePath: "/result.txt", content: text, contentType: "text", ext: ".txt" },
    options: { config: { rules: [{ id: creator.meta.id, rule: creator, rules: [] }] } },
  });
  const m = result.messages.find((m) => !NOT_SECRET_MESSAGES.has(m.messageId));
  if (m === undefined) return null;
  return {
    what: `${m.ruleId.replace("@secretlint/secretlint-rule-", "")}:${m.messageId}`,
    span: [m.range[0], m.range[1]],
  };
}
