import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A server that does not answer is not drift: it has its own exit code and names its URL.
const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "toolfence-contracts-"));
let url: string;

function contracts(...args: string[]) {
  const child = spawnSync(process.execPath, [join(ROOT, "scripts/contracts.ts"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: child.status, out: child.stdout, err: child.stderr };
}

beforeAll(async () => {
  // A port that was free a moment ago and that nothing listens on now.
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  url = `http://127.0.0.1:${port}/mcp`;
  const pin = { tool: "echo", source: url, sha256: "0".repeat(64), schema: {} };
  writeFileSync(join(dir, "ev_echo.pin.json"), JSON.stringify(pin));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run contracts with a server that cannot be reached", () => {
  it("drift exits 3, not 1, naming the URL and the pins it could not compare", () => {
    const res = contracts("drift", "--dir", dir);
    expect(res.code).toBe(3);
    expect(res.err).toContain(`cannot list the tools of the MCP server at ${url}`);
    expect(res.err).toContain("1 pinned tool(s) not compared");
    expect(res.out).not.toContain("drift: a pinned tool changed");
  });

  it("import exits 3 naming the URL", () => {
    const res = contracts("import", "--mcp", url, "--out", dir);
    expect(res.code).toBe(3);
    expect(res.err).toContain(`cannot list the tools of the MCP server at ${url}`);
  });
});
