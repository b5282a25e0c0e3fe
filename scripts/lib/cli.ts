/**
 * What every command line under scripts/ does with its arguments: `--help` (or `-h`) prints
 * the usage and exits 0; an unknown option, a missing value or a bad number prints what is
 * wrong and the usage, and exits 2, never a stack trace, and before anything has started.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

/** The exit code of a mistake in the command line. */
export const USAGE_EXIT = 2;

/** Print `problem` and `usage` on stderr and exit with USAGE_EXIT. */
function usageError(problem: string, usage: string): never {
  console.error(`${problem}\n${usage}`);
  process.exit(USAGE_EXIT);
}

/** When `argv` asks for help: print `usage` on stdout and exit 0. */
function exitOnHelp(argv: readonly string[], usage: string): void {
  const end = argv.indexOf("--");
  const options = end < 0 ? argv : argv.slice(0, end);
  if (options.includes("--help") || options.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
}

/**
 * node:util's parseArgs over `config.args` (the process's arguments by default), with --help
 * and mistakes handled as above.
 */
export function parseCli<T extends ParseArgsConfig>(
  config: T,
  usage: string,
): ReturnType<typeof parseArgs<T>> {
  exitOnHelp(config.args ?? process.argv.slice(2), usage);
  try {
    return parseArgs(config);
  } catch (e) {
    if (!(e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) throw e;
    return usageError((e as Error).message, usage);
  }
}

/** Option `--name`'s value as a whole number of at least `min`, or a usage error. */
export function wholeNumber(name: string, value: string, min: number, usage: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min) {
    return usageError(`--${name} must be a whole number of at least ${min}, not ${value}`, usage);
  }
  return n;
}
