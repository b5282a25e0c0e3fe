/**
 * `npm run bench:mcp [-- --calls=N]`: the overhead of a fenced MCP call over a direct one,
 * against the reference server and a `wrangler dev` this script starts. Prints the table and
 * writes it into BENCHMARKS.md in place of the previous one.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { benchMcp } from "./bench/mcp.ts";
import { markdown, plain } from "./bench/table.ts";
import { parseCli, wholeNumber } from "./lib/cli.ts";
import { startDev } from "./lib/dev-server.ts";
import { startEverything } from "./lib/mcp-everything.ts";
import { DEFAULT_KEY } from "./lib/target.ts";

const USAGE = "usage: npm run bench:mcp [-- --calls=<n>]";
const { values: flags } = parseCli({ options: { calls: { type: "string" } } }, USAGE);
const calls = flags.calls === undefined ? 300 : wholeNumber("calls", flags.calls, 1, USAGE);
const HEADING = "### MCP upstream:";

async function main(): Promise<void> {
  const mcp = await startEverything();
  const dev = await startDev({ DEV_KEY: DEFAULT_KEY, MCP_EVERYTHING_URL: mcp.url });
  try {
    const before = loadavg()[0]?.toFixed(1);
    const table = await benchMcp(dev.url, mcp.url, calls);
    const command = `npm run bench:mcp${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
    table.note += ` Command: \`${command}\`, ${new Date().toISOString()}, ${availableParallelism()} CPUs, load ${before} before, ${loadavg()[0]?.toFixed(1)} after.`;
    process.stdout.write(`\n${plain(table)}`);
    const doc = readFileSync("BENCHMARKS.md", "utf8");
    const start = doc.indexOf(HEADING);
    const next = start < 0 ? -1 : doc.indexOf("\n### ", start + 1);
    const kept =
      start < 0
        ? doc.trimEnd()
        : `${doc.slice(0, start).trimEnd()}${next < 0 ? "" : `\n\n${doc.slice(next + 1).trimEnd()}`}`;
    writeFileSync("BENCHMARKS.md", `${kept}\n\n${markdown(table)}`);
    process.stderr.write("wrote BENCHMARKS.md\n");
  } finally {
    dev.stop();
    await mcp.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:mcp: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
