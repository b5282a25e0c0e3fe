import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContract } from "../../src/core/contract.ts";
import { contracts, ROOT } from "./contracts-cli.ts";
import { type ListingServer, listingServer } from "./mcp-test-server.ts";

// An import into a folder other than contracts/, two levels down: the files it writes must
// build there as they are, with nothing copied beside them.
// Inside the project, so generated files resolve valibot; ignored by git.
const dir = mkdtempSync(join(ROOT, "test/repo/.imported-"));
const nested = join(dir, "fences", "ops");

const tools = [
  {
    name: "lookup",
    description: "Look a word up",
    inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  },
];

let server: ListingServer;

beforeAll(async () => {
  server = await listingServer(tools);
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run contracts -- import into a nested folder", () => {
  it("writes imports relative to that folder: the contract loads and typechecks there", async () => {
    const res = await contracts("import", "--mcp", server.url, "--out", nested);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(readdirSync(nested).sort()).toEqual(["lookup.pin.json", "lookup.ts"]);
    const text = readFileSync(join(nested, "lookup.ts"), "utf8");
    expect(text).toContain('from "../../../../../src/core/contract.ts"');
    expect(text).toContain('from "../../../../../contracts/mcp-content.ts"');

    // Node resolves every import the file makes at run time (the content schemas among them).
    const href = pathToFileURL(join(nested, "lookup.ts")).href;
    const lookup = Object.values((await import(href)) as Record<string, ToolContract>)[0];
    expect(lookup?.name).toBe("lookup");
    expect(v.safeParse(lookup?.input ?? v.never(), { word: "fence" }).success).toBe(true);

    // The type import too: the project's compiler options, on the imported file alone.
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(ROOT, "tsconfig.json"),
        compilerOptions: { types: ["node"] },
        include: ["fences/**/*.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const checked = await promisify(execFile)(
      process.execPath,
      [tsc, "-p", join(dir, "tsconfig.json")],
      {
        cwd: ROOT,
        timeout: 120_000,
      },
    ).then(
      () => ({ code: 0, out: "" }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(checked).toEqual({ code: 0, out: "" });
  }, 180_000);
});
