import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A `wrangler dev` this process started, on loopback. */
export interface DevServer {
  /** Base URL, `http://127.0.0.1:PORT`. */
  url: string;
  /** Its process group (wrangler's Node process and its workerd), or null if none started. */
  group: number | null;
  /** The port of its inspector (the DevTools protocol, for the worker's workerd). */
  inspector: number;
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
  const state = mkdtempSync(join(options.stateRoot ?? tmpdir(), "toolfence-bench-"));
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state];
  // Two servers may run at once (the fence and the bench's floor): each its own inspector.
  const inspector = await freePort();
  args.push("--inspector-port", String(inspector));
  if (options.config !== undefined) args.push("--config", options.config);
  else args.push("--env", "demo", "--config", "wrangler.toml", "--config", "demo/wrangler.toml");
  args.push("--log-level", "warn");
  if (options.testScheduled === true) args.push("--test-scheduled");
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  // Its own process group, so stopping it stops workerd too.
  const child = spawn("node_modules/.bin/wrangler", args, {
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...options.env },
  });
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
  return { url, group: child.pid ?? null, inspector, stop };
}
