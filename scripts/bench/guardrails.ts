/**
 * What the result rules catch and miss on labelled corpora nobody here wrote
 * (test/fixtures/guardrail-corpora/, made by `npm run guard-corpora`): per detector and
 * corpus, recall on the texts it should find something in and the false-positive rate on the
 * texts it should not, through `guardResult` as a tool's answer takes it (each text one string
 * of a result, read as it reads, its encodings decoded). A secret is also tried as tools return
 * one in other forms: split across two fields, with a zero-width space inside, and inside
 * base64, percent-encoded or nested JSON.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DetectorKind } from "../../src/core/guardrails/detectors.ts";
import {
  DEFAULT_RULES,
  GUARD_RULES,
  type GuardAction,
  type ResolvedRules,
} from "../../src/core/guardrails/rules.ts";
import { type GuardFinding, guardResult } from "../../src/core/guardrails/scan.ts";
import {
  type Corpus,
  type CorpusDetector,
  type Sample,
  samplesOf,
} from "../guard-corpora/corpus.ts";
import type { Table } from "./table.ts";

export const CORPORA_DIR = "test/fixtures/guardrail-corpora";

/** Every corpus file. */
export function loadCorpora(dir = CORPORA_DIR): Corpus[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Corpus);
}

/** Only `detector`'s rule on, at `action`; every other rule `allow`. */
export function rulesFor(detector: DetectorKind, action: GuardAction = "flag"): ResolvedRules {
  return Object.fromEntries(
    GUARD_RULES.map((r) => [r, { ...DEFAULT_RULES[r], action: r === detector ? action : "allow" }]),
  ) as unknown as ResolvedRules;
}

/** A tool's answer holding the text: one string, or the fields a form of it is spread over. */
export type Shape = (s: Sample) => unknown;

/** The forms a secret is tried in: as the text is, and as tools return it otherwise. */
export const SECRET_FORMS: readonly { name: string; shape: Shape }[] = [
  { name: "as is", shape: (s) => ({ text: s.text }) },
  {
    name: "zero-width space inside",
    shape: (s) => {
      const at = middle(s);
      return { text: `${s.text.slice(0, at)}\u200B${s.text.slice(at)}` };
    },
  },
  {
    name: "split across two fields",
    shape: (s) => {
      const at = middle(s);
      return { key_part_1: s.text.slice(0, at), key_part_2: s.text.slice(at) };
    },
  },
  {
    name: "split across two blocks",
    shape: (s) => {
      const at = middle(s);
      return {
        content: [
          { type: "text", text: s.text.slice(0, at) },
          { type: "text", text: s.text.slice(at) },
        ],
      };
    },
  },
  { name: "base64 JSON", shape: (s) => ({ body: base64(JSON.stringify({ log: s.text })) }) },
  {
    name: "percent-encoded JSON",
    shape: (s) => ({
      url: `https://tools.example/callback?state=${encodeURIComponent(JSON.stringify({ note: s.text }))}`,
    }),
  },
  {
    name: "nested JSON string",
    shape: (s) => ({ body: JSON.stringify({ event: JSON.stringify({ message: s.text }) }) }),
  },
];

/** The middle of the labelled span (the secret), else of the text. */
function middle(s: Sample): number {
  const [start, end] = s.span ?? [0, s.text.length];
  return Math.floor((start + end) / 2);
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The findings of `detector` in `answer`, under its rule alone at `action`. */
export function findingsOf(
  detector: DetectorKind,
  answer: unknown,
  action: GuardAction = "flag",
): GuardFinding[] {
  const guarded = guardResult(answer, rulesFor(detector, action));
  return guarded.findings.filter((f) => f.rule === detector);
}

/** What one detector made of one corpus in one form. */
export interface Score {
  detector: DetectorKind;
  corpus: string;
  positives: number;
  found: number;
  negatives: number;
  flagged: number;
  /** Time `guardResult` took per KiB of answer (its JSON), in microseconds. */
  microsPerKiB: number;
  /** Missed positives by what they are, most first, with one of each. */
  misses: { what: string; count: number; example: string }[];
  /** False positives by what was found in what, most first, with one of each. */
  falsePositives: { what: string; count: number; example: string }[];
}

function worst(items: readonly { what: string; example: string }[]) {
  const by = new Map<string, { what: string; count: number; example: string }>();
  for (const { what, example } of items) {
    const seen = by.get(what);
    if (seen === undefined) by.set(what, { what, count: 1, example });
    else seen.count++;
  }
  return [...by.values()].sort((a, b) => b.count - a.count || a.what.localeCompare(b.what));
}

/**
 * Score `detector` on positives and negatives, each made an answer by `shape`, its rule at
 * `action`; at `block`, only the findings that withhold the answer count.
 */
export function score(
  detector: DetectorKind,
  corpus: string,
  samples: readonly Sample[],
  shape: Shape = (s) => ({ text: s.text }),
  action: "flag" | "block" = "flag",
): Score {
  const misses: { what: string; example: string }[] = [];
  const fps: { what: string; example: string }[] = [];
  let found = 0;
  let flagged = 0;
  let positives = 0;
  let bytes = 0;
  let millis = 0;
  for (const s of samples) {
    const answer = shape(s);
    bytes += new TextEncoder().encode(JSON.stringify(answer)).length;
    const started = performance.now();
    const hits = findingsOf(detector, answer, action).filter(
      (f) => action === "flag" || f.action === "block",
    );
    millis += performance.now() - started;
    if (s.positive) {
      positives++;
      if (hits.length > 0) found++;
      else misses.push({ what: s.what, example: s.text });
    } else if (hits.length > 0) {
      flagged++;
      fps.push({ what: `${hits.map((h) => h.what).join("+")} in ${s.what}`, example: s.text });
    }
  }
  return {
    detector,
    corpus,
    positives,
    found,
    negatives: samples.length - positives,
    flagged,
    microsPerKiB: bytes === 0 ? 0 : (1000 * millis) / (bytes / 1024),
    misses: worst(misses),
    falsePositives: worst(fps),
  };
}

const PII: readonly CorpusDetector[] = ["payment_card", "email", "phone", "iban"];

/**
 * Every score the bench reports: each detector on its own corpora (positives, and the
 * negatives they hold), on the benign text, and on the other personal-data corpora (a card
 * number is no phone number); a secret in every form of SECRET_FORMS; text addressed to the
 * model at both operating points.
 */
export function scoreAll(corpora: readonly Corpus[]): Score[] {
  const scores: Score[] = [];
  const benign = corpora.filter((c) => c.detector === "benign");
  const detectors = [...new Set(corpora.map((c) => c.detector))].filter(
    (d): d is DetectorKind => d !== "benign",
  );
  for (const detector of detectors) {
    for (const c of corpora.filter((c) => c.detector === detector)) {
      const samples = samplesOf(c);
      if (detector === "secrets" && samples.every((s) => s.positive)) {
        for (const form of SECRET_FORMS) {
          scores.push(score(detector, `${c.name}, ${form.name}`, samples, form.shape));
        }
      } else if (detector === "model_addressed") {
        scores.push(...operatingPoints(c.name, samples));
      } else scores.push(score(detector, c.name, samples));
    }
    for (const c of benign) {
      if (detector === "model_addressed") scores.push(...operatingPoints(c.name, samplesOf(c)));
      else scores.push(score(detector, c.name, samplesOf(c)));
    }
    const others = corpora.filter(
      (c) =>
        c.detector !== detector && PII.includes(c.detector) && detector !== "hidden_characters",
    );
    if (others.length > 0 && detector !== "model_addressed") {
      const negatives = others.flatMap((c) =>
        samplesOf(c).map((s) => ({ ...s, positive: false, what: `${c.detector} ${s.what}` })),
      );
      scores.push(score(detector, "the other personal-data corpora", negatives));
    }
  }
  return scores;
}

/**
 * Text addressed to the model at its two operating points: the rule at `block` (what
 * withholds an answer) and at `flag` (every phrase it finds).
 */
function operatingPoints(corpus: string, samples: readonly Sample[]): Score[] {
  return (["block", "flag"] as const).map((point) =>
    score("model_addressed", `${corpus} (${point})`, samples, undefined, point),
  );
}

const pct = (n: number, of: number) => (of === 0 ? "–" : `${((100 * n) / of).toFixed(1)}%`);

/** The five worst misses (or false positives), as `what ×count`. */
function five(items: Score["misses"]): string {
  return (
    items
      .slice(0, 5)
      .map((m) => `${m.what} ×${m.count}`)
      .join("; ") || "–"
  );
}

export function benchGuardrails(): { table: Table; details: string } {
  const corpora = loadCorpora();
  const scores = scoreAll(corpora);
  const rows = scores.map((s) => [
    s.detector,
    s.corpus,
    String(s.positives),
    pct(s.found, s.positives),
    String(s.negatives),
    pct(s.flagged, s.negatives),
    s.microsPerKiB.toFixed(0),
    [
      s.positives > 0 ? five(s.misses) : "",
      s.flagged > 0 ? `false positives: ${five(s.falsePositives)}` : "",
    ]
      .filter((x) => x !== "")
      .join("; ") || "–",
  ]);
  const details = scores
    .filter((s) => s.misses.length > 0 || s.falsePositives.length > 0)
    .map((s) => {
      const lines = [`${s.detector} on ${s.corpus}:`];
      for (const m of s.misses.slice(0, 5)) {
        lines.push(
          `  missed ${m.what} ×${m.count}, e.g. ${JSON.stringify(m.example.slice(0, 140))}`,
        );
      }
      for (const m of s.falsePositives.slice(0, 5)) {
        lines.push(
          `  false positive ${m.what} ×${m.count}, e.g. ${JSON.stringify(m.example.slice(0, 140))}`,
        );
      }
      return lines.join("\n");
    })
    .join("\n");
  return {
    table: {
      title: "Result rules on outside corpora",
      note:
        "Each detector of the result rules through `guardResult`, its rule alone on, over " +
        "labelled corpora from npm packages (test/fixtures/guardrail-corpora/README.md says " +
        "which, at which version, under which licence, and how each was made): recall on " +
        "the texts that hold what it finds, false-positive rate on those that do not, and the " +
        "five worst misses (or false positives where there are no positives), by kind and " +
        "count, and the time `guardResult` took per KiB of answer. A secret is also tried split across two fields or two content blocks, with a " +
        "zero-width space inside, and inside base64, percent-encoded and nested JSON. Text " +
        "addressed to the model is scored at both operating points: `block` counts the " +
        "phrases an answer is withheld for, `flag` every phrase. " +
        "`npm run bench -- --guardrails` measures and rewrites this table alone, and prints " +
        "an example of each miss.",
      head: [
        "detector",
        "corpus",
        "n+",
        "recall",
        "n−",
        "false positives",
        "µs per KiB",
        "worst misses",
      ],
      rows,
    },
    details,
  };
}
