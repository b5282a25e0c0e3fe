/**
 * Verifying an exported audit log with no access to the fence (`npm run audit -- verify`): the
 * NDJSON export, the signed head and the JWKS are read as texts, each line and file by the
 * fence's strict JSON reader (src/core/json.ts), so a duplicate member is refused, never
 * resolved to its last value as JSON.parse would (RFC 8259 §4 leaves that to the reader; a
 * log another reader takes differently is no evidence). The chain rule is
 * src/core/audit-chain.ts; the head fixes where the log ends and who vouched for it
 * (src/core/audit-head.ts). An entry past the signed head is unverified: the verdict fails
 * unless the caller accepts an unsigned tail, and then says how many entries it holds.
 */
import * as v from "valibot";
import { type ChainReport, verifyChain } from "../../src/core/audit-chain.ts";
import { type SignedHead, verifyHead } from "../../src/core/audit-head.ts";
import { type JsonValue, parseStrictJson } from "../../src/core/json.ts";
import { AuditKeysSchema, SignedHeadSchema } from "../../src/http/wire-approvals.ts";

/** Nesting an export's line may hold: an entry's deepest member (`principal`, `budget_after`) is 2. */
const MAX_DEPTH = 8;

/** What is verified: the texts of the export and, optionally, of a head and a JWKS. */
export interface ExportTexts {
  /** The NDJSON export, one entry per line. */
  log: string;
  /** A signed head as `GET /v1/runs/{id}/audit/head` answers it, or null. */
  head: string | null;
  /** The JWKS of `GET /.well-known/toolfence-audit-keys`, or null. */
  keys: string | null;
}

/** How to verify. */
export interface VerifyOptions {
  /** The run's tenant; the head's when absent. */
  tenant?: string | undefined;
  /** The run id; the head's when absent. */
  run?: string | undefined;
  /** Accept entries after the signed head as an unsigned tail (the verdict counts them). */
  acceptUnsignedTail: boolean;
}

/** The verdict, printed as one JSON line. */
export interface Verdict extends ChainReport {
  /** The key that signed the head; false without a head; a sentence when not checked. */
  signed?: string | false;
  /** With a head: how many entries come after it, which no signature covers. */
  unsigned?: number;
}

/** Why the texts cannot be verified at all: the run is not named. */
export interface Unnamed {
  /** What is missing. */
  usage: string;
}

/** `text` as one JSON value by the strict reader, or what is wrong with it. */
function strict(text: string): { value: JsonValue } | { problem: string } {
  const parsed = parseStrictJson(text, { maxDepth: MAX_DEPTH });
  return parsed.ok ? { value: parsed.value } : { problem: parsed.error.detail };
}

/** A file as a value of `schema`, or what is wrong with it (its name first). */
function fileOf<T>(
  name: string,
  text: string,
  schema: v.GenericSchema<unknown, T>,
): { value: T } | { problem: string } {
  const read = strict(text);
  if ("problem" in read) return { problem: `${name}: ${read.problem}` };
  const checked = v.safeParse(schema, read.value);
  if (checked.success) return { value: checked.output };
  const issue = checked.issues[0];
  return { problem: `${name}: ${v.getDotPath(issue) ?? "(root)"}: ${issue.message}` };
}

/** One line of the export as an entry (a JSON object), or what is wrong with it. */
function entryOf(line: string): { entry: Record<string, unknown> } | { problem: string } {
  const read = strict(line);
  if ("problem" in read) return read;
  const { value } = read;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problem: "not a JSON object" };
  }
  return { entry: value };
}

/** The export's entries, or the first line that is not one entry as JSON. */
function entriesOf(log: string): { entries: Record<string, unknown>[] } | { bad: ChainReport } {
  const lines = log.split("\n").filter((line) => line.trim() !== "");
  const entries: Record<string, unknown>[] = [];
  for (const [i, line] of lines.entries()) {
    const read = entryOf(line);
    if ("problem" in read) {
      // Entries before it are not checked yet: the chain is verified once all are read.
      const problem = `line ${i + 1} is not an entry: ${read.problem}`;
      return {
        bad: { ok: false, entries: lines.length, head: null, first_bad_seq: i + 1, problem },
      };
    }
    entries.push(read.entry);
  }
  return { entries };
}

/** Verify an export: its chain, and with a head, where it ends, who signed it, what follows it. */
export async function verifyExport(
  texts: ExportTexts,
  opts: VerifyOptions,
): Promise<Verdict | Unnamed> {
  let head: SignedHead | null = null;
  if (texts.head !== null) {
    const read = fileOf("head", texts.head, SignedHeadSchema);
    if ("problem" in read) return { ok: false, entries: 0, head: null, problem: read.problem };
    head = read.value;
  }
  const tenant = opts.tenant ?? head?.tenant;
  const run = opts.run ?? head?.run;
  if (tenant === undefined || run === undefined) {
    return { usage: "--tenant and --run are needed without --head" };
  }
  const read = entriesOf(texts.log);
  if ("bad" in read) return read.bad;
  const { entries } = read;
  const chain = verifyChain(entries, { tenant, run });
  if (!chain.ok) return chain;
  if (head === null) return { ...chain, signed: false };
  const bad = (first_bad_seq: number, problem: string): Verdict => ({
    ...chain,
    ok: false,
    first_bad_seq,
    problem,
  });
  if (head.tenant !== tenant || head.run !== run) {
    return bad(head.seq, `the head is of run ${head.tenant}/${head.run}, not ${tenant}/${run}`);
  }
  const last = chain.head?.seq ?? 0;
  if (head.seq > last) {
    return bad(
      last + 1,
      `truncated: the head vouches for ${head.seq} entries, the log has ${last}`,
    );
  }
  // The chain is whole and starts at 1, so entry `seq` is at index seq - 1.
  if (entries[head.seq - 1]?.hash !== head.hash) {
    return bad(head.seq, "the head's hash is not this log's entry at its seq");
  }
  let signed: string;
  if (texts.keys === null) {
    signed = "not checked (no --keys)";
  } else {
    const jwks = fileOf("keys", texts.keys, AuditKeysSchema);
    if ("problem" in jwks) return bad(head.seq, jwks.problem);
    const signature = await verifyHead(head, jwks.value.keys);
    if (!signature.ok) return bad(head.seq, `head: ${signature.problem}`);
    signed = head.kid;
  }
  const unsigned = last - head.seq;
  if (unsigned > 0 && !opts.acceptUnsignedTail) {
    return {
      ...bad(
        head.seq + 1,
        `${unsigned} ${unsigned === 1 ? "entry" : "entries"} after the signed head (seq ${head.seq}), which its signature does not cover: unverified (--accept-unsigned-tail accepts them as an unsigned tail)`,
      ),
      signed,
      unsigned,
    };
  }
  return { ...chain, signed, unsigned };
}
