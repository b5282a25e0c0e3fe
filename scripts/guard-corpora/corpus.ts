/**
 * A labelled corpus of the result rules' benchmark, as test/fixtures/guardrail-corpora/ keeps
 * it: where it comes from, the detector it measures, and its samples. A corpus of secrets keeps
 * each text base64-encoded, so no file holds a literal a secret scanner stops at (the tests
 * build theirs at run time for the same reason); `samplesOf` gives them back as text.
 */
import type { DetectorKind } from "../../src/core/guardrails/detectors.ts";

/** The result rule a corpus measures, or `benign`: text none should find anything in. */
export type CorpusDetector = DetectorKind | "benign";

/** One labelled text. */
export interface Sample {
  text: string;
  /** Whether the detector should find something in it. */
  positive: boolean;
  /** What it is: a format, a form, a shape of text. */
  what: string;
  /** Where in `text` the labelling tool found it, `[start, end)`, where it says. */
  span?: [number, number];
}

/** Where a corpus was taken from. */
export interface CorpusSource {
  package: string;
  version: string;
  /** File or export inside the package. */
  path: string;
  licence: string;
}

export interface Corpus {
  /** Its file name, without `.json`. */
  name: string;
  /** The detector it measures; `benign` for text no detector should act on. */
  detector: CorpusDetector;
  description: string;
  source: CorpusSource | readonly CorpusSource[];
  samples: readonly Sample[];
  /** Texts kept base64-encoded (UTF-8). */
  encoded?: boolean;
}

const utf8 = new TextEncoder();

function toBase64(text: string): string {
  let binary = "";
  for (const byte of utf8.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(b64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}

/** The file of a corpus, its texts encoded where it says so. */
export function corpusFile(c: Corpus): string {
  const samples = c.encoded ? c.samples.map((s) => ({ ...s, text: toBase64(s.text) })) : c.samples;
  const { samples: _, ...head } = c;
  const lines = samples.map((s) => JSON.stringify(s));
  return `${JSON.stringify(head, null, 2).replace(/\n}$/, "")},\n  "samples": [\n    ${lines.join(",\n    ")}\n  ]\n}\n`;
}

/** The samples of a corpus file as text. */
export function samplesOf(c: Corpus): Sample[] {
  return c.encoded ? c.samples.map((s) => ({ ...s, text: fromBase64(s.text) })) : [...c.samples];
}
