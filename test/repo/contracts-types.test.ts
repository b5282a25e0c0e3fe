import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import { clientTypes } from "../../scripts/lib/client-types.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { contracts, ROOT } from "./contracts-cli.ts";

const run = promisify(execFile);
// Inside the project, so the checks below resolve valibot; ignored by git.
const dir = mkdtempSync(join(ROOT, "test/repo/.types-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A consumer of the declaration, type-checked with `toolfence/client` mapped to the client's
 * sources: every tool's generated types must be mutually assignable with what valibot infers
 * from the same contract, and a wrong name or argument must not compile.
 */
const CONSUMER = `
import { createClient } from "toolfence/client";
import type { ContractTypes } from "${ROOT}/client/types.ts";
import type { TOOLS } from "${ROOT}/demo/contracts/index.ts";
import type { ContractTools } from "./demo-tools";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Inferred = ContractTypes<typeof TOOLS>;
type Each = { [N in keyof Inferred]: Same<Inferred[N], ContractTools[N & keyof ContractTools]> };
export const names: Same<keyof Inferred, keyof ContractTools> = true;
export const each: false extends Each[keyof Each] ? "differs" : "same" = "same";

const run = createClient({ url: "http://127.0.0.1:1", key: "k" }).run("r");
export const made = run.call("create_ticket", { ticket_id: "T-1", priority: "high" });
// @ts-expect-error: no tool of this name
run.call("create_tickets", { ticket_id: "T-1" });
// @ts-expect-error: priority is one of low, normal, high, urgent
run.call("create_ticket", { ticket_id: "T-1", priority: "HIGH" });
// @ts-expect-error: a key the contract does not name
run.call("add_comment", { ticket_id: "T-1", body: "b", bodyy: "b" });
`;

describe("npm run contracts -- types", () => {
  it("types toolfence/client for the demo's tools exactly as valibot infers them", async () => {
    const out = join(dir, "demo-tools.d.ts");
    const res = await contracts("types", "--dir", "demo/contracts", "--out", out);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toContain(`the types of ${CONTRACTS.length} tool(s) of demo/contracts`);
    const text = readFileSync(out, "utf8");
    expect(text).toContain('declare module "toolfence/client"');
    expect(text).not.toMatch(/from "\.|valibot/);

    writeFileSync(join(dir, "consumer.ts"), CONSUMER);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "es2022",
          module: "preserve",
          moduleResolution: "bundler",
          allowImportingTsExtensions: true,
          resolveJsonModule: true,
          types: [],
          paths: { "toolfence/client": [join(ROOT, "client/index.ts")] },
        },
        files: ["consumer.ts", "demo-tools.d.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules/.bin/tsc");
    const checked = await run(tsc, ["-p", dir]).catch((e: { stdout: string }) => e);
    expect(checked.stdout).toBe("");
  }, 60_000);

  it("keeps a tool's text in comments that it cannot end", async () => {
    const hostile = {
      name: "lookup",
      version: "1",
      description: "Looks up. */ declare const injected: 1; /*",
      effect: "read",
      paid: false,
      timeoutMs: 1000,
      cacheTtlSeconds: 0,
      upstream: { kind: "http", url: "https://upstream.example" },
      input: v.strictObject({ word: v.pipe(v.string(), v.description("*/ export {}; /*")) }),
      output: v.object({ pair: v.tuple([v.string(), v.number()]) }),
    } as unknown as ToolContract;
    const text = await clientTypes([hostile], "fences/*/ops");
    // Every comment closes only where it ends a line; nothing between comments is upstream text.
    const code = text.replace(/\/\*\*?[\s\S]*?\*\//g, "");
    expect(code).not.toContain("injected");
    expect(code).not.toContain("export {}");
    expect(text).toContain("pair: [string, number];");
  });
});
