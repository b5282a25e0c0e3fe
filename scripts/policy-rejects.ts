/**
 * Proves `policy check` fails a broken policy file: exit status 1 and every offending
 * path named. Run in `npm test`, so a check that stopped refusing would fail CI.
 */
import { spawnSync } from "node:child_process";

const CASES: readonly { file: string; paths: readonly string[] }[] = [
  {
    file: "test/fixtures/policy-broken-schema.json",
    paths: [
      "policy.tools.add_comment.max_calls_per_run",
      "policy.tools.create_ticket.per_target.scope",
    ],
  },
  {
    file: "test/fixtures/policy-broken-rules.json",
    paths: [
      "policy.tools.create_ticket.per_target.arg",
      "policy.tools.delete_ticket",
      "policy.tenants.trial.max_mutations",
      "policy.tools.add_comment.approval.0.arg",
      "policy.tools.add_comment.approval.1.matches",
    ],
  },
];

let failures = 0;
for (const { file, paths } of CASES) {
  const run = spawnSync(
    process.execPath,
    ["scripts/policy.ts", "check", "--contracts", "demo/contracts", "--policy", file],
    {
      encoding: "utf8",
    },
  );
  const missing = paths.filter((p) => !run.stderr.includes(`${p}:`));
  if (run.status !== 1 || missing.length > 0) {
    failures++;
    console.error(`policy check on ${file}: exit ${run.status}, missing ${missing.join(", ")}`);
    console.error(run.stderr);
  }
}
console.log(`policy check refuses ${CASES.length - failures}/${CASES.length} broken policy files`);
process.exitCode = failures > 0 ? 1 : 0;
