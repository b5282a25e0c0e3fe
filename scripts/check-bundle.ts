/**
 * `npm run check`, after the dry-run build: the bundle must not generate code at run time
 * (workerd refuses `eval` and `new Function`, while the vitest workers pool allows them, so a
 * dependency that compiles schemas to code passes the tests and fails deployed), no module
 * may be bundled twice, and it may not carry the demo (scripts/lib/bundle-check.ts).
 */
import { readFileSync } from "node:fs";
import { codegenSites, demoTraces, duplicateModules } from "./lib/bundle-check.ts";

const BUNDLE = ".wrangler/dry-run/index.js";
const text = readFileSync(BUNDLE, "utf8");

const found = codegenSites(text);
if (found.length > 0) {
  console.error(
    `${BUNDLE} generates code at run time, which workerd refuses:\n  ${found.join("\n  ")}`,
  );
  process.exitCode = 1;
} else {
  console.log(`${BUNDLE}: no eval or new Function`);
}

const twice = duplicateModules(JSON.parse(readFileSync(`${BUNDLE}.map`, "utf8")));
if (twice.length > 0) {
  console.error(`${BUNDLE} holds modules more than once:\n  ${twice.join("\n  ")}`);
  process.exitCode = 1;
} else {
  console.log(`${BUNDLE}: no module bundled twice`);
}

const demo = demoTraces(text);
if (demo.length > 0) {
  console.error(`${BUNDLE} carries the demo: ${demo.join(", ")}`);
  process.exitCode = 1;
} else {
  console.log(`${BUNDLE}: no demo code`);
}
