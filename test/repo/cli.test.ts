import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Every `npm run` command that is one of the project's command lines: name → script file. */
const COMMANDS = Object.entries(
  (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts,
).flatMap(([name, command]) => {
  const script = /^node (scripts\/[\w-]+\.ts)$/.exec(command)?.[1];
  return script === undefined ? [] : [[name, script] as const];
});

function run(script: string, ...args: string[]) {
  const child = spawnSync(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: child.status, out: child.stdout, err: child.stderr };
}

/** A Node stack frame, which a mistake in the command line must never print. */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe("the command lines", () => {
  it("are every single-script npm command, so a new one is checked too", () => {
    expect(COMMANDS.map(([name]) => name).sort()).toEqual(
      [
        "audit",
        "bench",
        "bench:mcp",
        "bench:paired",
        "conformance",
        "contracts",
        "fuzz",
        "guard-corpora",
        "keys",
        "policy",
        "replay",
      ].sort(),
    );
  });

  it.each(COMMANDS)("npm run %s -- --help prints its usage and exits 0", (_name, script) => {
    const { code, out, err } = run(script, "--help");
    expect(out).toMatch(/^usage:/);
    expect(err).toBe("");
    expect(code).toBe(0);
  });

  it.each(COMMANDS)(
    "npm run %s with an unknown option names it with the usage and exits 2",
    (_name, script) => {
      const { code, out, err } = run(script, "--no-such-option");
      expect(err).toMatch(/^Unknown option '--no-such-option'/);
      expect(err).toContain("\nusage:");
      expect(err).not.toMatch(STACK);
      expect(out).toBe("");
      expect(code).toBe(2);
    },
  );

  it.each([
    ["fuzz", "scripts/fuzz.ts", "--n", "abc"],
    ["fuzz", "scripts/fuzz.ts", "--per-run", "0"],
    ["bench", "scripts/bench.ts", "--growth=ten"],
    ["bench:mcp", "scripts/bench-mcp.ts", "--calls=-3"],
  ])(
    "npm run %s refuses a count that is not a whole number in range: %s %s",
    (_n, script, ...args) => {
      const { code, err } = run(script, ...args);
      expect(err).toMatch(/must be a whole number of at least \d+, not /);
      expect(err).not.toMatch(STACK);
      expect(code).toBe(2);
    },
  );

  it.each([{ commits: [] }, { commits: ["HEAD"] }, { commits: ["HEAD", "HEAD", "HEAD"] }])(
    "npm run bench:paired refuses anything but two commits, before it checks one out: $commits",
    ({ commits }) => {
      const { code, out, err } = run("scripts/bench-paired.ts", ...commits);
      expect(err).toMatch(/^two commits, not \d+\nusage:/);
      expect(err).not.toMatch(STACK);
      expect(out).toBe("");
      expect(code).toBe(2);
    },
  );
});
