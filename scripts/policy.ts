/**
 * `npm run policy -- check [--contracts dir] [--policy path]`: validate the policy and the
 * contracts of `dir` (`contracts/`, or the demo's `demo/contracts/`) together and print, for a reviewer, every tool with its effect, caps, timeout and cache
 * TTL. Exits 1 on any problem, naming the offending path.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ToolContract } from "../src/core/contract.ts";
import { checkPolicyText, policyReport } from "../src/core/policy-report.ts";
import { parseCli, USAGE_EXIT } from "./lib/cli.ts";
import {
  type ContractModule,
  checkContractFolder,
  declaredBindings,
} from "./lib/contract-folder.ts";

const USAGE = "usage: npm run policy -- check [--contracts dir] [--policy path]";

/** Every module of the contracts folder `dir` with its exports. */
async function contractModules(dir: string): Promise<ContractModule[]> {
  const names = readdirSync(dir).filter((n) => n.endsWith(".ts") && n !== "index.ts");
  return Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const exports = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
      return { path, exports };
    }),
  );
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseCli(
    {
      args: argv,
      options: { policy: { type: "string" }, contracts: { type: "string" } },
      allowPositionals: true,
    },
    USAGE,
  );
  if (positionals.length !== 1 || positionals[0] !== "check") {
    console.error(USAGE);
    return USAGE_EXIT;
  }
  const dir = values.contracts ?? "contracts";
  const path = values.policy ?? join(dir, "policy.json");
  const index = pathToFileURL(resolve(dir, "index.ts")).href;
  const { CONTRACTS } = (await import(index)) as { CONTRACTS: readonly ToolContract[] };
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
  const folder = checkContractFolder({
    modules: await contractModules(dir),
    listed: CONTRACTS,
    allowed: checked.value.policy.allowed_tools,
    bindings: declaredBindings(readFileSync("wrangler.toml", "utf8")),
  });
  if (folder.errors.length > 0) {
    console.error(`${dir}/ is incomplete:\n  ${folder.errors.join("\n  ")}`);
    return 1;
  }
  const notes = folder.notes.map((n) => `note: ${n}\n`).join("");
  console.log(`${path}: ok\n${notes}\n${policyReport(checked.value)}`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
