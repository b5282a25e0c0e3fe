import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { devKeyLines } from "../../scripts/lib/config-check.ts";

describe("the deploy's configuration check", () => {
  it("passes the shipped wrangler.toml", () => {
    const toml = readFileSync(resolve(import.meta.dirname, "../../wrangler.toml"), "utf8");
    expect(devKeyLines(toml)).toEqual([]);
  });

  it("finds DEV_KEY set in [vars], inline or quoted, and ignores comments", () => {
    const toml = [
      "[vars]",
      'DEMO_LOG_LATENCY_MS = "300-800"',
      '# DEV_KEY = "never"',
      'DEV_KEY = "tf_dev_local_key"',
      '"DEV_KEY" = "x"',
      'vars = { A = "1", DEV_KEY = "x" }',
    ].join("\n");
    expect(devKeyLines(toml)).toEqual([
      'line 4: DEV_KEY = "tf_dev_local_key"',
      'line 5: "DEV_KEY" = "x"',
      'line 6: vars = { A = "1", DEV_KEY = "x" }',
    ]);
  });
});
