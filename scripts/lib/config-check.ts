/**
 * What wrangler.toml must never hold: the development key is for `wrangler dev` only, and a
 * `[vars]` entry would ship it with every deploy (where the worker refuses it, loudly).
 */

/** Lines of a wrangler.toml that set DEV_KEY (comments aside), as `line N: text`. */
export function devKeyLines(toml: string): string[] {
  return toml
    .split("\n")
    .map((line, i) => ({ line: line.replace(/#.*$/, "").trim(), n: i + 1 }))
    .filter(({ line }) => /^"?DEV_KEY"?\s*=/.test(line) || /[{,]\s*"?DEV_KEY"?\s*=/.test(line))
    .map(({ line, n }) => `line ${n}: ${line}`);
}
