/**
 * A small fixed sample of each outside corpus (test/fixtures/guardrail-corpora/), kept as
 * regression tests: what the benchmark (`npm run bench -- --guardrails`) measures in full is
 * held here on every seventh text, at floors below its measured figures.
 */
import { describe, expect, it } from "vitest";
import { type Score, score } from "../../scripts/bench/guardrails.ts";
import { type Corpus, samplesOf } from "../../scripts/guard-corpora/corpus.ts";
import cards from "../fixtures/guardrail-corpora/faker-cards.json";
import emails from "../fixtures/guardrail-corpora/faker-emails.json";
import ibans from "../fixtures/guardrail-corpora/faker-ibans.json";
import phones from "../fixtures/guardrail-corpora/libphonenumber-examples.json";
import benign from "../fixtures/guardrail-corpora/npm-benign-text.json";
import secrets from "../fixtures/guardrail-corpora/secretlint-formats.json";
import hidden from "../fixtures/guardrail-corpora/unicode-hidden.json";

const every7th = (c: unknown) => samplesOf(c as Corpus).filter((_, i) => i % 7 === 0);
const recall = (s: Score) => s.found / s.positives;

describe("result rules on a fixed sample of the outside corpora", () => {
  it("find every sampled card, e-mail address and IBAN", () => {
    expect(recall(score("payment_card", "cards", every7th(cards)))).toBe(1);
    expect(recall(score("email", "emails", every7th(emails)))).toBe(1);
    expect(recall(score("iban", "ibans", every7th(ibans)))).toBe(1);
  });

  it("find most sampled phone numbers and secrets of known formats", () => {
    expect(recall(score("phone", "phones", every7th(phones)))).toBeGreaterThanOrEqual(0.7);
    expect(recall(score("secrets", "secrets", every7th(secrets)))).toBeGreaterThanOrEqual(0.4);
  });

  it("find every sampled hidden character", () => {
    const positives = every7th(hidden).filter((s) => s.positive);
    expect(recall(score("hidden_characters", "hidden", positives))).toBe(1);
  });

  it("pass every sampled emoji sequence: skin tones, keycaps, subdivision flags", () => {
    const emoji = every7th(hidden).filter((s) => !s.positive);
    const flags = samplesOf(hidden as Corpus).filter((s) => s.what === "RGI_Emoji_Tag_Sequence");
    expect(score("hidden_characters", "hidden", [...emoji, ...flags]).flagged).toBe(0);
  });

  it("flag no personal data, secret or hidden character in sampled benign text", () => {
    const sample = every7th(benign);
    for (const d of ["email", "iban", "phone", "secrets", "hidden_characters"] as const) {
      expect(score(d, "benign", sample).flagged, d).toBe(0);
    }
  });
});
