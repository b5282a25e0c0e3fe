import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AuthProxy, authProxy } from "./auth-proxy.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BASELINE = join(ROOT, "test/e2e/mcp-conformance-baseline.yml");

let proxy: AuthProxy;
beforeAll(async () => {
  proxy = await authProxy(inject("fenceUrl"), "tf_dev_local_key");
});
afterAll(() => proxy.close());

/** Run the official MCP conformance suite against one run's endpoint. */
function conformance(url: string): Promise<{ code: number | null; output: string }> {
  const out = mkdtempSync(join(tmpdir(), "toolfence-conformance-"));
  const bin = join(ROOT, "node_modules/.bin/conformance");
  const args = ["server", "--url", url, "--expected-failures", BASELINE, "-o", out];
  return new Promise((done) => {
    const child = spawn(bin, args, { env: process.env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => {
      rmSync(out, { recursive: true, force: true });
      done({ code, output });
    });
  });
}

describe("the official MCP conformance suite", () => {
  it("passes every generic server scenario; the baseline lists each that cannot apply", async () => {
    const { code, output } = await conformance(
      `${proxy.url}/v1/runs/conformance-${Date.now()}/mcp`,
    );
    for (const scenario of ["server-initialize", "ping", "tools-list"]) {
      expect(output).toContain(`✓ ${scenario}: 1 passed, 0 failed`);
    }
    expect(output).toMatch(/✓ dns-rebinding-protection: [1-9]\d* passed, 0 failed/);
    expect(code, output.slice(-3000)).toBe(0);
  }, 120_000);
});
