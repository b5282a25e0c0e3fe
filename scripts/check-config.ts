/**
 * `npm run check` runs this before the deploy dry run: it fails when wrangler.toml sets
 * DEV_KEY, which must only ever come from `npm run dev`.
 */
import { readFileSync } from "node:fs";
import { devKeyLines } from "./lib/config-check.ts";

const found = devKeyLines(readFileSync("wrangler.toml", "utf8"));
if (found.length > 0) {
  console.error(
    `wrangler.toml sets DEV_KEY, which a deploy must never carry:\n  ${found.join("\n  ")}`,
  );
  process.exitCode = 1;
} else {
  console.log("wrangler.toml: no DEV_KEY");
}
