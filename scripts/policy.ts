/**
 * `npm run policy -- check [--policy path]`: validate the policy and the contracts
 * together and print, for a reviewer, every tool with its effect, caps, timeout and cache
 * TTL. Exits 1 on any problem, naming the offending path.
 */
import { readFileSync } from "node:fs";
import { CONTRACTS } from "../contracts/index.ts";
import { checkPolicyText, policyReport } from "../src/core/policy-report.ts";

const DEFAULT_POLICY = "contracts/policy.json";
const USAGE = "usage: npm run policy -- check [--policy path]";

function main(argv: readonly string[]): number {
  const [command, ...rest] = argv;
  if (command !== "check") {
    console.error(USAGE);
    return 2;
  }
  let path = DEFAULT_POLICY;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = rest[i + 1];
    if (arg !== "--policy" || value === undefined) {
      console.error(USAGE);
      return 2;
    }
    path = value;
    i++;
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    console.error(`${path}: cannot be read (${(e as Error).message})`);
    return 1;
  }
  const checked = checkPolicyText(text, CONTRACTS);
  if (!checked.ok) {
    console.error(`${path} is invalid:\n  ${checked.error.join("\n  ")}`);
    return 1;
  }
  console.log(`${path}: ok\n\n${policyReport(checked.value)}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
