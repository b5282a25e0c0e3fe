/**
 * `npm run audit -- verify --file run.ndjson [--head head.json] [--keys keys.json]
 *   [--tenant t --run r] [--accept-unsigned-tail]`: verify an exported audit log with no access
 * to the fence (scripts/lib/audit-verify.ts; the chain rule in src/core/audit-chain.ts and
 * docs/audit.md). A head fixes where the log ends and, with the JWKS from
 * /.well-known/toolfence-audit-keys, who vouched for it; entries after it fail the verdict
 * unless `--accept-unsigned-tail` accepts them, counted as `unsigned`.
 * Exit 0 when intact; 1 with the first bad seq and what is wrong; 2 on a usage error.
 */
import { readFileSync } from "node:fs";
import { verifyExport } from "./lib/audit-verify.ts";
import { parseCli, USAGE_EXIT } from "./lib/cli.ts";

const USAGE =
  "usage: npm run audit -- verify --file run.ndjson [--head head.json] [--keys keys.json] [--tenant t --run r] [--accept-unsigned-tail]";

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
        "accept-unsigned-tail": { type: "boolean", default: false },
      },
    },
    USAGE,
  );
  if (positionals[0] !== "verify" || values.file === undefined) {
    console.error(USAGE);
    return USAGE_EXIT;
  }
  const read = (path: string | undefined) =>
    path === undefined ? null : readFileSync(path, "utf8");
  const verdict = await verifyExport(
    { log: readFileSync(values.file, "utf8"), head: read(values.head), keys: read(values.keys) },
    { tenant: values.tenant, run: values.run, acceptUnsignedTail: values["accept-unsigned-tail"] },
  );
  if ("usage" in verdict) {
    console.error(`${USAGE}\n(${verdict.usage})`);
    return USAGE_EXIT;
  }
  // `ok` last: the verdict's, never a part's.
  const { ok, ...what } = verdict;
  console.log(JSON.stringify({ ...what, ok }));
  return ok ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
