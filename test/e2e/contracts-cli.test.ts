import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpText } from "../../contracts/mcp-content.ts";
import { type McpServerProcess, startEverything } from "../../scripts/lib/mcp-everything.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { validateOutput } from "../../src/core/validate.ts";

// `npm run contracts` as a user runs it, against its own reference MCP server (the global
// one is stopped by another file mid-run).
const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
let server: McpServerProcess;
let out: string;

async function contracts(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["scripts/contracts.ts", ...args], {
      cwd: root,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function load(file: string): Promise<ToolContract> {
  // A query makes Node load the edited file afresh.
  const href = `${pathToFileURL(join(out, file)).href}?${Date.now()}`;
  const exports = (await import(href)) as Record<string, ToolContract>;
  return Object.values(exports)[0] as ToolContract;
}

beforeAll(async () => {
  server = await startEverything();
  // Inside the project, so the files resolve valibot and the fence's modules they import.
  out = mkdtempSync(join(root, "test/e2e/.imported-"));
});

afterAll(async () => {
  await server?.stop();
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

describe("npm run contracts -- import", () => {
  it("writes one pinned, strict contract per requested tool", async () => {
    const res = await contracts(
      "import",
      "--mcp",
      server.url,
      "--tools",
      "echo,get-sum",
      "--prefix",
      "ev_",
      "--out",
      out,
    );
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("ev_echo.ts");
    const sum = await load("ev_get_sum.ts");
    expect(JSON.parse(readFileSync(join(out, "ev_get_sum.pin.json"), "utf8"))).toEqual(
      sum.upstream.kind === "mcp" ? sum.upstream.pinned : null,
    );
    expect(sum.upstream).toMatchObject({
      kind: "mcp",
      tool: "get-sum",
      pinned: { source: server.url },
    });
    expect(sum.effect).toBe("read");
    expect(v.safeParse(sum.input, { a: 1, b: 2 }).success).toBe(true);
    expect(v.safeParse(sum.input, { a: "1", b: 2 }).success).toBe(false);
    // Unlisted keys are refused although the server's schema leaves them open.
    expect(v.safeParse(sum.input, { a: 1, b: 2, c: 3 }).success).toBe(false);
    // Every block of an answer is kept, and once tightened to fewer, more are refused, not cut.
    const answer = { content: [1, 2, 3].map((n) => ({ type: "text", text: `part ${n}` })) };
    expect(validateOutput(sum, answer)).toEqual({ ok: true, value: answer });
    const tightened = { ...sum, output: v.strictObject({ content: v.tuple([McpText]) }) };
    expect(validateOutput(tightened, answer)).toMatchObject({
      ok: false,
      error: { reason: "output_contract_violation" },
    });
  });

  it("refuses a tool name the server does not list", async () => {
    const res = await contracts("import", "--mcp", server.url, "--tools", "nope", "--out", out);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("the server lists no tool named nope");
  });
});

describe("npm run contracts -- drift", () => {
  it("reports no drift right after an import, listing the tools not pinned as new", async () => {
    const res = await contracts("drift", "--dir", out);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/ev_echo\s+echo\s+unchanged/);
    expect(res.stdout).toMatch(/-\s+get-tiny-image\s+new/);
  });

  it("reports a changed schema with its diff, and a tool gone, and exits 1", async () => {
    const echoFile = join(out, "ev_echo.pin.json");
    const echo = JSON.parse(readFileSync(echoFile, "utf8"));
    // As if the server's schema had said something else when it was pinned.
    echo.sha256 = "0".repeat(64);
    echo.schema.inputSchema.properties.message.description = "Text to repeat";
    writeFileSync(echoFile, JSON.stringify(echo));
    const sumFile = join(out, "ev_get_sum.pin.json");
    writeFileSync(
      sumFile,
      JSON.stringify({ ...JSON.parse(readFileSync(sumFile, "utf8")), tool: "get-total" }),
    );
    const res = await contracts("drift", "--dir", out, "--mcp", server.url);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/ev_echo\s+echo\s+changed/);
    expect(res.stdout).toContain('- "description": "Text to repeat"');
    expect(res.stdout).toContain('+ "description": "Message to echo"');
    expect(res.stdout).toMatch(/ev_get_sum\s+get-total\s+gone/);
    expect(res.stdout).toContain("drift: a pinned tool changed or is gone");
  });
});
