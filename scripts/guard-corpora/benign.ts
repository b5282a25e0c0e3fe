/**
 * Text no result rule should act on, of the shapes tools return, from public text in npm
 * packages: the entries of release changelogs (what a ticket tracker answers: commit
 * ids, versions, links, names), the paragraphs of READMEs (what a search or a docs fetch
 * answers), and their code blocks (configuration, commands and their output). Written by
 * their projects, not to pass a rule; a finding in them is a false positive, and the bench
 * lists the worst ones so each can be read.
 */
import { readFileSync } from "node:fs";
import type { Corpus, CorpusSource, Sample } from "./corpus.ts";

/** Changelogs: one entry is one bullet with its continuation lines. */
const CHANGELOGS = ["openai", "ai", "@ai-sdk/gateway"];
/** READMEs: one sample per paragraph or fenced code block. */
const READMES = [
  "openai",
  "ai",
  "@openai/agents",
  "jose",
  "fast-check",
  "autocannon",
  "oidc-provider",
  "hono",
  "valibot",
  "@opentelemetry/api",
];
/** At most this many samples of one file, taken evenly through it. */
const PER_FILE = 600;
/** Shorter texts say too little to count. */
const SHORTEST = 24;
/**
 * A text holding an e-mail address (a maintainer's, a `mailto:` link) is left out: it is not
 * text without one, and the e-mail corpora measure finding them.
 */
const ADDRESS = /[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b/i;

function pkg(name: string): { version: string; license: string; dir: string } {
  // Read where npm installed it: not every package exports its package.json.
  const path = `node_modules/${name}/package.json`;
  const { version, license } = JSON.parse(readFileSync(path, "utf8")) as {
    version: string;
    license: string;
  };
  return { version, license, dir: path.replace(/package\.json$/, "") };
}

function changelogEntries(text: string): string[] {
  const entries: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) entries.push(current.join("\n").trim());
    current = [];
  };
  for (const line of text.split("\n")) {
    if (/^\s{0,2}[*-] /.test(line)) {
      flush();
      current.push(line.replace(/^\s*[*-] /, ""));
    } else if (/^#/.test(line) || line.trim() === "") flush();
    else if (current.length > 0) current.push(line);
  }
  flush();
  return entries;
}

function readmeBlocks(text: string): { what: string; text: string }[] {
  const blocks: { what: string; text: string }[] = [];
  const fences = text.split(/^```.*$/m);
  fences.forEach((part, i) => {
    if (i % 2 === 1) {
      blocks.push({ what: "code block", text: part.trim() });
      return;
    }
    for (const paragraph of part.split(/\n\s*\n/)) {
      const t = paragraph.trim();
      if (!t.startsWith("#") && !t.startsWith("<") && !t.startsWith("[![")) {
        blocks.push({ what: "paragraph", text: t });
      }
    }
  });
  return blocks;
}

/** At most `n` of `items`, evenly through them. */
function evenly<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)] as T);
}

export function benignText(): Corpus[] {
  const sources: CorpusSource[] = [];
  const samples: Sample[] = [];
  const seen = new Set<string>();
  const keep = (what: string, text: string) => {
    if (text.length < SHORTEST || seen.has(text) || ADDRESS.test(text)) return;
    seen.add(text);
    samples.push({ text, positive: false, what });
  };
  for (const name of CHANGELOGS) {
    const p = pkg(name);
    sources.push({ package: name, version: p.version, path: "CHANGELOG.md", licence: p.license });
    const entries = changelogEntries(readFileSync(`${p.dir}CHANGELOG.md`, "utf8"));
    for (const e of evenly(entries, PER_FILE)) keep(`changelog entry (${name})`, e);
  }
  for (const name of READMES) {
    const p = pkg(name);
    sources.push({ package: name, version: p.version, path: "README.md", licence: p.license });
    const blocks = readmeBlocks(readFileSync(`${p.dir}README.md`, "utf8"));
    for (const b of evenly(blocks, PER_FILE)) keep(`README ${b.what} (${name})`, b.text);
  }
  return [
    {
      name: "npm-benign-text",
      detector: "benign",
      description:
        "Changelog entries, README paragraphs and README code blocks of npm packages: tickets, search hits and command output, with none of the data the rules find.",
      source: sources,
      samples,
    },
  ];
}
