/**
 * `npm run replay -- audit.ndjson [--policy path] [--tenant name]`: re-decide every
 * proposal of a run's NDJSON audit export against the current contracts and a policy,
 * executing nothing, and print which fence decisions would change. Exits 1 on a bad
 * input, 0 otherwise (a change is a finding, not a failure).
 */
import { readFileSync } from "node:fs";
import { CONTRACTS } from "../contracts/index.ts";
import { checkPolicyText } from "../src/core/policy-report.ts";
import { formatReport, parseAudit, replayAudit } from "../src/core/replay.ts";
import { MAX_JSON_DEPTH } from "../src/http/limits.ts";
import { parseCli, USAGE_EXIT } from "./lib/cli.ts";

const USAGE = "usage: npm run replay -- audit.ndjson [--policy path] [--tenant name]";

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    console.error(`${path}: cannot be read (${(e as Error).message})`);
    return null;
  }
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseCli(
    {
      args: argv,
      options: {
        policy: { type: "string", default: "contracts/policy.json" },
        tenant: { type: "string", default: "default" },
      },
      allowPositionals: true,
    },
    USAGE,
  );
  if (positionals.length !== 1) {
    console.error(USAGE);
    return USAGE_EXIT;
  }
  const args = { audit: positionals[0] ?? "", ...values };
  const policyText = read(args.policy);
  const auditText = read(args.audit);
  if (policyText === null || auditText === null) return 1;
  const fence = checkPolicyText(policyText, CONTRACTS);
  if (!fence.ok) {
    console.error(`${args.policy} is invalid:\n  ${fence.error.join("\n  ")}`);
    return 1;
  }
  const records = parseAudit(auditText);
  if (!records.ok) {
    console.error(`${args.audit} is not an audit export:\n  ${records.error.join("\n  ")}`);
    return 1;
  }
  const opts = { fence: fence.value, tenant: args.tenant, maxDepth: MAX_JSON_DEPTH };
  console.log(formatReport(await replayAudit(records.value, opts)));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
