/**
 * A tool's listing through the same eyes as its results: an MCP server's tool names,
 * descriptions and schema text reach the model as instructions would, so they are searched for
 * hidden characters and text addressed to the model, a name is compared with the other tools'
 * for imitation (Unicode confusables, look-alike letters, mixed scripts), and a description
 * far longer than its schema warrants is reported. Used by `npm run contracts -- import`, its
 * drift check and the scheduled one; what was found is pinned with the contract.
 */
import CONFUSABLES from "./confusables.json" with { type: "json" };
import { detectionText } from "./detection-text.ts";
import { findHidden, findModelAddressed } from "./detectors.ts";

/** What a listing scan finds. */
export type ListingFindingKind =
  | "hidden_characters"
  | "model_addressed"
  | "confusable_name"
  | "mixed_script_name"
  | "long_description";

/** One thing found in a tool's listing; never the text itself beyond a name. */
export interface ListingFinding {
  /** What was found. */
  kind: ListingFindingKind;
  /** Where: `name`, `description`, or a dotted path into a schema (`inputSchema.properties.q.description`). */
  at: string;
  /** What exactly: a code point, a phrase's name, the tool imitated, the scripts, the length. */
  what: string;
}

/** Kinds that stop an import unless accepted: the listing hides or addresses instructions. */
export const REFUSING: ReadonlySet<ListingFindingKind> = new Set([
  "hidden_characters",
  "model_addressed",
  "confusable_name",
  "mixed_script_name",
]);

/** A tool as `tools/list` returns it, the parts scanned. */
export interface ListedToolText {
  /** The server's name for the tool. */
  name: string;
  /** Its description. */
  description?: string | undefined;
  /** JSON Schema of its arguments. */
  inputSchema: unknown;
  /** JSON Schema of its structured result. */
  outputSchema?: unknown;
}

/**
 * What each character reads as: Unicode's confusables (UTS #39, `confusables.txt`), the
 * mappings whose prototype is ASCII letters, digits, `_` or `-` (vendored in confusables.txt
 * beside this file, converted by `npm run confusables`).
 */
const PROTOTYPES: Readonly<Record<string, string>> = CONFUSABLES.prototypes;

/**
 * The skeleton of a name (UTS #39 §4, with NFKC for NFD so compatibility forms such as
 * fullwidth letters fold too): two names with the same skeleton read the same. Case and
 * separators are dropped as well, and two ASCII look-alikes confusables.txt keeps apart are
 * folded: `i` as `l` (`create_tlcket`) and `vv` as `w`.
 */
export function skeleton(name: string): string {
  return [...name.normalize("NFKC")]
    .map((ch) => PROTOTYPES[ch] ?? ch)
    .join("")
    .toLowerCase()
    .replace(/i/g, "l")
    .replace(/vv/g, "w")
    .replace(/[-_.\s]/g, "");
}

/** The scripts of the letters of `name`, by Unicode Script property. */
function scriptsOf(name: string): string[] {
  const scripts = new Set<string>();
  for (const ch of name) {
    if (/\p{Script=Latin}/u.test(ch)) scripts.add("Latin");
    else if (/\p{Script=Cyrillic}/u.test(ch)) scripts.add("Cyrillic");
    else if (/\p{Script=Greek}/u.test(ch)) scripts.add("Greek");
    else if (/\p{L}/u.test(ch)) scripts.add("other");
  }
  return [...scripts];
}

/** Every string of a schema (descriptions, titles, enum values, patterns) with its path. */
function stringsOf(value: unknown, at: string, out: [string, string][]): void {
  if (typeof value === "string") {
    out.push([at, value]);
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) stringsOf(item, `${at}[${i}]`, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, item] of Object.entries(value)) {
      // A property's name reaches the model too.
      out.push([`${at}.${k} (key)`, k]);
      stringsOf(item, `${at}.${k}`, out);
    }
  }
}

/** Characters a description may hold per argument of its schema, beyond a base allowance. */
const DESCRIPTION_BASE = 600;
const DESCRIPTION_PER_PROPERTY = 300;

function propertyCount(schema: unknown): number {
  const props = (schema as { properties?: unknown } | null)?.properties;
  return typeof props === "object" && props !== null ? Object.keys(props).length : 0;
}

/**
 * Scan one listed tool. `others` are the names it must not imitate: the server's other tools
 * and the fence's own.
 */
export function scanListedTool(tool: ListedToolText, others: Iterable<string>): ListingFinding[] {
  const findings: ListingFinding[] = [];
  const texts: [string, string][] = [
    ["name", tool.name],
    ["description", tool.description ?? ""],
  ];
  stringsOf(tool.inputSchema, "inputSchema", texts);
  if (tool.outputSchema !== undefined) stringsOf(tool.outputSchema, "outputSchema", texts);
  const seen = new Set<string>();
  for (const [at, text] of texts) {
    // Text addressed to the model is searched as it reads, as a result's is (detection-text.ts).
    const read = detectionText(text)?.text ?? text;
    for (const span of [...findHidden(text), ...findModelAddressed(read)]) {
      const id = `${span.kind}\n${at}\n${span.what}`;
      if (seen.has(id)) continue;
      seen.add(id);
      findings.push({ kind: span.kind as ListingFindingKind, at, what: span.what });
    }
  }
  const scripts = scriptsOf(tool.name);
  if (scripts.length > 1 || scripts.some((s) => s !== "Latin") || /[^\x20-\x7e]/.test(tool.name)) {
    findings.push({
      kind: "mixed_script_name",
      at: "name",
      what: scripts.join("+") || "non-ASCII",
    });
  }
  const mine = skeleton(tool.name);
  for (const other of new Set(others)) {
    if (other !== tool.name && skeleton(other) === mine) {
      findings.push({ kind: "confusable_name", at: "name", what: other });
    }
  }
  const length = [...(tool.description ?? "")].length;
  const warranted = DESCRIPTION_BASE + DESCRIPTION_PER_PROPERTY * propertyCount(tool.inputSchema);
  if (length > warranted) {
    findings.push({
      kind: "long_description",
      at: "description",
      what: `${length} characters for ${propertyCount(tool.inputSchema)} argument(s) (at most ${warranted} expected)`,
    });
  }
  return findings;
}

/** One finding in words, for a terminal or a page. */
export function describeListingFinding(f: ListingFinding): string {
  return `${f.kind} at ${f.at}: ${f.what}`;
}
