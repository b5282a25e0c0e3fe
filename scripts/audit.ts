/**
 * `npm run audit -- verify --file run.ndjson [--head head.json] [--keys keys.json]
 *   [--tenant t --run r]`: verify an exported audit log with no access to the fence. The
 * chain rule is in src/core/audit-chain.ts (and docs/audit.md); a head fixes where the log
 * ends and, with the JWKS from /.well-known/toolfence-audit-keys, who vouched for it.
 * Exit 0 when intact; 1 with the first bad seq and what is wrong; 2 on a usage error.
 */
import { readFileSync } from "node:fs";
import { verifyChain } from "../src/core/audit-chain.ts";
import { type PublicJwk, type SignedHead, verifyHead } from "../src/core/audit-head.ts";
import { parseCli } from "./lib/cli.ts";

const USAGE =
  "usage: npm run audit -- verify --file run.ndjson [--head head.json] [--keys keys.json] [--tenant t --run r]";

function entriesOf(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Print the verdict and give the exit code; `ok` is the verdict's, never a part's. */
function verdict(ok: boolean, what: Record<string, unknown>): number {
  console.log(JSON.stringify({ ...what, ok }));
  return ok ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCli(
    {
      args: argv,
      allowPositionals: true,
      options: {
        file: { type: "string" },
        head: { type: "string" },
        keys: { type: "string" },
        tenant: { type: "string" },
        run: { type: "string" },
      },
    },
    USAGE,
  );
  const head =
    values.head === undefined
      ? null
      : (JSON.parse(readFileSync(values.head, "utf8")) as SignedHead);
  const tenant = values.tenant ?? head?.tenant;
  const run = values.run ?? head?.run;
  if (
    positionals[0] !== "verify" ||
    values.file === undefined ||
    tenant === undefined ||
    run === undefined
  ) {
    console.error(`${USAGE}\n(--tenant and --run are needed without --head)`);
    return 2;
  }
  const entries = entriesOf(values.file);
  const chain = verifyChain(entries, { tenant, run });
  if (!chain.ok) return verdict(false, { ...chain });
  if (head === null) return verdict(true, { ...chain, signed: false });
  if (head.tenant !== tenant || head.run !== run) {
    return verdict(false, {
      ...chain,
      first_bad_seq: head.seq,
      problem: `the head is of run ${head.tenant}/${head.run}, not ${tenant}/${run}`,
    });
  }
  const atHead = entries.find((e) => e.seq === head.seq);
  if (atHead === undefined) {
    return verdict(false, {
      ...chain,
      first_bad_seq: (chain.head?.seq ?? 0) + 1,
      problem: `truncated: the head vouches for ${head.seq} entries, the log has ${entries.length}`,
    });
  }
  if (atHead.hash !== head.hash) {
    return verdict(false, {
      ...chain,
      first_bad_seq: head.seq,
      problem: "the head's hash is not this log's entry at its seq",
    });
  }
  if (values.keys === undefined)
    return verdict(true, { ...chain, signed: "not checked (no --keys)" });
  const { keys } = JSON.parse(readFileSync(values.keys, "utf8")) as { keys: PublicJwk[] };
  const signature = await verifyHead(head, keys);
  if (!signature.ok)
    return verdict(false, {
      ...chain,
      first_bad_seq: head.seq,
      problem: `head: ${signature.problem}`,
    });
  return verdict(true, { ...chain, signed: head.kid });
}

process.exitCode = await main(process.argv.slice(2));
