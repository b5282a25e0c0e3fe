/**
 * `npm run check`, after the dry-run build: the bundle must not generate code at run time.
 * workerd refuses `eval` and `new Function` (EvalError), while the vitest workers pool allows
 * them, so a dependency that compiles schemas to code passes the tests and fails deployed.
 */
import { readFileSync } from "node:fs";

const BUNDLE = ".wrangler/dry-run/index.js";
const CODEGEN = /\bnew Function\s*\(|(?<![\w.$])eval\s*\(/g;

const text = readFileSync(BUNDLE, "utf8");
const found = [...text.matchAll(CODEGEN)].map((m) =>
  text.slice(Math.max(0, m.index - 60), m.index + 40),
);
if (found.length > 0) {
  console.error(
    `${BUNDLE} generates code at run time, which workerd refuses:\n  ${found.join("\n  ")}`,
  );
  process.exit(1);
}
console.log(`${BUNDLE}: no eval or new Function`);
