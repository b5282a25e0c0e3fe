/** `npm run contracts` as a user runs it, for the command line's tests. */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/** The project's root, where the command runs. */
export const ROOT = resolve(import.meta.dirname, "../..");

const run = promisify(execFile);

/**
 * Run `scripts/contracts.ts` with `args`, its exit code and output; asynchronously, since the
 * test's own process serves the MCP server it lists.
 */
export async function contracts(...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(ROOT, "scripts/contracts.ts"), ...args],
      { cwd: ROOT, timeout: 30_000 },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}
