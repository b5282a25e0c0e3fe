import { type ChildProcess, spawn } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** A `wrangler dev` this process started, on loopback. */
export interface DevServer {
  /** Base URL, `http://127.0.0.1:PORT`. */
  url: string;
  /** Its process group (wrangler's Node process and its workerd), or null if none started. */
  group: number | null;
  /** The port of its inspector (the DevTools protocol, for the worker's workerd). */
  inspector: number;
  /** Its local state folder (`--persist-to`): `wrangler kv … --local --persist-to` reaches it. */
  state: string;
  /** Stop it (its whole process group) and drop its state. */
  stop: () => void;
}

/** A port the kernel says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs} ms`);
}

/** Where and what `wrangler dev` runs. */
export interface DevOptions {
  /**
   * A wrangler config other than the project's own (the bench's floor worker); without it,
   * the fence's demo environment and the demo upstreams worker, as `npm run dev` runs them.
   */
  config?: string;
  /** Folder the temporary state folder is made in: the OS's by default; `/dev/shm` for tmpfs. */
  stateRoot?: string;
  /** Environment variables for wrangler beside this process's own. */
  env?: Record<string, string>;
  /** Let `GET /__scheduled` run the worker's scheduled handler (the drift check) at once. */
  testScheduled?: boolean;
  /** A file that gets everything wrangler and the worker print (the worker's logs), as well. */
  logFile?: string;
  /** The checkout to run (its wrangler configs, its code): this process's folder by default. */
  cwd?: string;
  /**
   * Fields of the demo's policy (demo/contracts/policy.json) set to other values for this
   * server only: the policy is written with them into its state folder and bundled in place of
   * the demo's. The checkout's files stay as they are.
   */
  policy?: Record<string, unknown>;
  /**
   * Build the worker minified or not, whatever its config says: the bench's CPU profiles run
   * it unminified, so each function keeps its own name.
   */
  minify?: boolean;
}

/** The demo upstreams worker's config, beside the fence's in the checkout. */
export const DEMO_CONFIG = "demo/wrangler.toml";

/**
 * The demo upstreams worker's config (`toml`, read from `path`) as `wrangler dev` should run it
 * beside the fence: each of `vars` the demo declares set to the given value, and its `main`
 * made absolute, so the text can be written anywhere. `wrangler dev -c a -c b` applies `--var`
 * to the first config's worker only, so a value meant for the demo upstreams (the log
 * backend's latency) has to be in the second config itself.
 */
export function demoConfig(toml: string, path: string, vars: Record<string, string>): string {
  const main = /^main = "([^"]+)"$/m;
  const entry = main.exec(toml)?.[1];
  if (entry === undefined) throw new Error(`${path} names no main`);
  let out = toml.replace(main, `main = ${JSON.stringify(resolve(dirname(path), entry))}`);
  for (const [name, value] of Object.entries(vars)) {
    const line = new RegExp(`^${name} = .*$`, "gm");
    out = out.replace(line, `${name} = ${JSON.stringify(value)}`);
  }
  return out;
}

/**
 * The configs of the fence with the demo's tools, as `npm run dev` runs them: the fence's demo
 * environment and the demo upstreams worker, whose config is written with `vars` into `state`.
 * A checkout whose demo runs inside the fence (no demo/wrangler.toml) gets the fence's alone.
 */
function demoArgs(
  vars: Record<string, string>,
  state: string,
  cwd: string,
  fence = "wrangler.toml",
): string[] {
  const path = resolve(cwd, DEMO_CONFIG);
  if (!existsSync(path)) return [];
  const demo = join(state, "demo-wrangler.toml");
  writeFileSync(demo, demoConfig(readFileSync(path, "utf8"), path, vars));
  return ["--env", "demo", "--config", fence, "--config", demo];
}

/** The demo's policy, and the module that imports it under `POLICY_IMPORT`. */
const DEMO_POLICY = "demo/contracts/policy.json";
const DEMO_CONTRACTS = "demo/contracts/index.ts";
const POLICY_IMPORT = "./policy.json";

/**
 * A wrangler config (`toml`, read from the checkout `cwd`) with its entries (`main`) and its
 * `[alias]` targets made absolute, so the text can be written anywhere.
 */
export function absoluteConfig(toml: string, cwd: string): string {
  return toml
    .replace(
      /^main = "([^"]+)"$/gm,
      (_, entry: string) => `main = ${JSON.stringify(resolve(cwd, entry))}`,
    )
    .replace(
      /^("[^"]+") = "(\.\.?\/[^"]+)"$/gm,
      (_, name: string, to: string) => `${name} = ${JSON.stringify(resolve(cwd, to))}`,
    );
}

/**
 * The fence's config (`toml`, the checkout's wrangler.toml in `cwd`) bundling `policy` in place
 * of the demo's policy: an `[alias]` entry for the import (wrangler resolves an alias by its
 * exact specifier; `wrangler dev` has no `--alias`), its paths made absolute, so the text can
 * be written anywhere.
 */
export function fenceConfig(toml: string, cwd: string, policy: string): string {
  if (!/^\[alias\]$/m.test(toml)) throw new Error("wrangler.toml has no [alias] table");
  return absoluteConfig(toml, cwd).replace(
    /^\[alias\]$/m,
    `[alias]\n${JSON.stringify(POLICY_IMPORT)} = ${JSON.stringify(policy)}`,
  );
}

/**
 * The checkout's fence config with the demo's policy, `fields` set, bundled in its place; both
 * written into `state`. Returns the config's path.
 */
function policyConfig(fields: Record<string, unknown>, state: string, cwd: string): string {
  const contracts = readFileSync(resolve(cwd, DEMO_CONTRACTS), "utf8");
  if (!contracts.includes(`from "${POLICY_IMPORT}"`))
    throw new Error(`${DEMO_CONTRACTS} does not import the policy as "${POLICY_IMPORT}"`);
  const policy = JSON.parse(readFileSync(resolve(cwd, DEMO_POLICY), "utf8")) as object;
  const written = join(state, "demo-policy.json");
  writeFileSync(written, `${JSON.stringify({ ...policy, ...fields }, null, 2)}\n`);
  const config = join(state, "fence-wrangler.toml");
  const toml = readFileSync(resolve(cwd, "wrangler.toml"), "utf8");
  writeFileSync(config, fenceConfig(toml, resolve(cwd), written));
  return config;
}

/**
 * Start `wrangler dev` on a free loopback port with fresh local state in a temporary
 * directory, passing `vars` as `--var NAME:VALUE`, and wait until it answers. A port can be
 * taken between the probe and wrangler's bind on a shared machine, so it tries three ports.
 */
export async function startDev(
  vars: Record<string, string>,
  options: DevOptions = {},
): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(vars, options);
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

async function startOnce(vars: Record<string, string>, options: DevOptions): Promise<DevServer> {
  const port = await freePort();
  const state = resolve(mkdtempSync(join(options.stateRoot ?? tmpdir(), "toolfence-bench-")));
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state];
  // Two servers may run at once (the fence and the bench's floor): each its own inspector.
  const inspector = await freePort();
  args.push("--inspector-port", String(inspector));
  if (options.config !== undefined) args.push("--config", options.config);
  else {
    const cwd = options.cwd ?? ".";
    try {
      const fence =
        options.policy === undefined ? undefined : policyConfig(options.policy, state, cwd);
      args.push(...demoArgs(vars, state, cwd, fence));
    } catch (e) {
      rmSync(state, { recursive: true, force: true });
      throw e;
    }
  }
  if (options.minify !== undefined) args.push(`--minify=${options.minify}`);
  // The worker's own console lines are printed from the `log` level up: kept when asked for.
  args.push("--log-level", options.logFile === undefined ? "warn" : "log");
  if (options.testScheduled === true) args.push("--test-scheduled");
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  // Its own process group, so stopping it stops workerd too.
  const logging = options.logFile !== undefined;
  const child = spawn("node_modules/.bin/wrangler", args, {
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", logging ? "pipe" : "ignore", logging ? "pipe" : "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...options.env },
  });
  if (options.logFile !== undefined) {
    const log = createWriteStream(options.logFile);
    child.stdout?.pipe(log);
    child.stderr?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      process.stderr.write(chunk);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  const drop = () => rmSync(state, { recursive: true, force: true });
  const stop = () => {
    if (child.pid === undefined || child.exitCode !== null) return drop();
    // Drop the state once workerd is gone, or it may write into it again.
    child.once("exit", drop);
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      drop();
    }
  };
  try {
    await waitReady(url, child, 60_000);
  } catch (e) {
    stop();
    throw e;
  }
  return { url, group: child.pid ?? null, inspector, state, stop };
}
