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

const USAGE = "usage: npm run replay -- audit.ndjson [--policy path] [--tenant name]";

interface Args {
  audit: string;
  policy: string;
  tenant: string;
}

function parseArgs(argv: readonly string[]): Args | null {
  const args: Partial<Args> = { policy: "contracts/policy.json", tenant: "default" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const value = argv[i + 1];
    if (arg === "--policy" || arg === "--tenant") {
      if (value === undefined) return null;
      args[arg === "--policy" ? "policy" : "tenant"] = value;
      i++;
    } else if (args.audit === undefined && !arg.startsWith("--")) args.audit = arg;
    else return null;
  }
  return args.audit === undefined ? null : (args as Args);
}

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    console.error(`${path}: cannot be read (${(e as Error).message})`);
    return null;
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args === null) {
    console.error(USAGE);
    return 2;
  }
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
