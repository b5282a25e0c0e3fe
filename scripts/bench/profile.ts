/**
 * `npm run bench -- --profile`: where a call's time goes inside the workerd that runs the code,
 * read from V8's sampling profiler over the inspector `wrangler dev` opens. That workerd runs
 * the worker and its Durable Objects on one thread, SQLite included, so its busy time per call
 * is what req/s follows under load. Every fence path with a CPU target (`noop`, the cache hit,
 * the refused call, `add_comment`, `create_ticket`) and the floors they are held against (one
 * insert; each mutation's floor keeping an idempotency key) are profiled under the same load,
 * alternated over rounds; printed, not written to BENCHMARKS.md. Each profile is also kept as
 * a `.cpuprofile` file (for DevTools) under `PROFILE_DIR`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import type { DevServer } from "../lib/dev-server.ts";
import {
  commentRequest,
  floorRequest,
  median,
  NOOP,
  REPEATED_READ,
  rotating,
  seedFloorTickets,
  seedTickets,
  unexpectedAnswers,
} from "./http.ts";
import type { Table } from "./table.ts";

/** A node of a V8 CPU profile (the inspector's `Profiler.Profile`). */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}

/** A V8 CPU profile: the call tree, and which node ran at each sample, µs apart. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Samples every 100 µs: fine enough for parts of a 2 ms call, coarse enough not to slow it. */
const SAMPLING_US = 100;
const CONNECTIONS = 8;

/** Where each row's profile of each round is written, one `.cpuprofile` file each. */
export const PROFILE_DIR = ".wrangler/bench-profiles";

/** A DevTools protocol session with one inspector target. */
class Inspector {
  private next = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (r: unknown) => void; reject: (e: Error) => void }
  >();

  private readonly socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const waiting = message.id === undefined ? undefined : this.waiting.get(message.id);
      if (waiting === undefined || message.id === undefined) return;
      this.waiting.delete(message.id);
      if (message.error === undefined) waiting.resolve(message.result);
      else waiting.reject(new Error(`inspector: ${message.error.message}`));
    });
    socket.addEventListener("close", () => {
      for (const { reject } of this.waiting.values()) reject(new Error("inspector closed"));
      this.waiting.clear();
    });
  }

  /** Attach to the first target of the inspector on `port` (wrangler's: the worker). */
  static async attach(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (url === undefined) throw new Error(`no inspector target on port ${port}`);
    // wrangler's inspector proxy refuses a connection without a local Origin; Node's WebSocket
    // (undici) takes request headers in its second argument, which the DOM's type does not know.
    const init = { headers: { Origin: `http://127.0.0.1:${port}` } };
    const socket = new WebSocket(url, init as unknown as string[]);
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve);
      socket.addEventListener("error", () => reject(new Error(`inspector ${url} refused`)));
    });
    return new Inspector(socket);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: (result) => resolve(result as T), reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** `request` against `server` for `seconds`, profiled after a warm-up: calls and the profile. */
async function profileLoad(
  server: DevServer,
  request: autocannon.Request,
  seconds: number,
  expect: number,
): Promise<{ calls: number; profile: CpuProfile }> {
  const load = async (duration: number) => {
    const r = await autocannon({
      url: server.url,
      connections: CONNECTIONS,
      duration,
      requests: [request],
    });
    const wrong = unexpectedAnswers(r, expect);
    if (wrong !== null) throw new Error(`profiled load on ${server.url}: ${wrong}`);
    return r;
  };
  await load(2);
  const inspector = await Inspector.attach(server.inspector);
  try {
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
    await inspector.send("Profiler.start");
    const result = await load(seconds);
    const { profile } = await inspector.send<{ profile: CpuProfile }>("Profiler.stop");
    return { calls: result.requests.total, profile };
  } finally {
    inspector.close();
  }
}

/** What V8 names the time no JavaScript ran: nothing to do, its own work, collecting garbage. */
const IDLE = "(idle)";
const OVERHEAD = new Set(["(program)", "(garbage collector)"]);

/** A function's samples: how many, and the µs they carry between them. */
interface Sampled {
  us: number;
  samples: number;
}

/** Sampled time per function ("name file:line"), by the function that was running. */
export function selfTimes(profile: CpuProfile): Map<string, Sampled> {
  const label = labels(profile);
  const out = new Map<string, Sampled>();
  profile.samples.forEach((id, i) => {
    const name = label.get(id) ?? "(unknown)";
    const seen = out.get(name) ?? { us: 0, samples: 0 };
    seen.us += profile.timeDeltas[i] ?? 0;
    seen.samples += 1;
    out.set(name, seen);
  });
  return out;
}

/** Each node's function as "name file:line" (a function without a file: its name alone). */
function labels(profile: CpuProfile): Map<number, string> {
  return new Map(
    profile.nodes.map((n) => {
      const { functionName, url, lineNumber } = n.callFrame;
      const file = url.split("/").pop() ?? "";
      return [
        n.id,
        file === ""
          ? functionName || "(anonymous)"
          : `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`,
      ];
    }),
  );
}

/**
 * Busy samples per function on the stack ("total" time): each sample counted once for every
 * function anywhere on its stack (once, however deep it recurses), idle and V8's own samples
 * left out. Counted in samples, not µs: a sample that carries the time the thread waited for a
 * core would charge that wait to whatever ran first, and a count does not.
 */
export function stackSamples(profile: CpuProfile): { busy: number; on: Map<string, number> } {
  const label = labels(profile);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const on = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const self = label.get(id) ?? "(unknown)";
    if (self === IDLE || OVERHEAD.has(self)) continue;
    busy += 1;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const fn = label.get(at) ?? "(unknown)";
      if (fn !== "(root)") seen.add(fn);
    }
    for (const fn of seen) on.set(fn, (on.get(fn) ?? 0) + 1);
  }
  return { busy, on };
}

/** One row's profiles over the rounds: calls and sampled µs per function, summed. */
interface Profiled {
  name: string;
  /** Busy ms per call in each round. */
  busy: number[];
  calls: number;
  self: Map<string, Sampled>;
  /** Busy samples (JavaScript and its native calls) and, per function, those it was on. */
  busySamples: number;
  onStack: Map<string, number>;
}

/** The samples of the functions `keep` picks, and their µs. */
function total(self: Map<string, Sampled>, keep: (fn: string) => boolean): Sampled {
  const sum = { us: 0, samples: 0 };
  for (const [fn, t] of self) {
    if (!keep(fn)) continue;
    sum.us += t.us;
    sum.samples += t.samples;
  }
  return sum;
}

const notIdle = (fn: string) => fn !== IDLE;

function add(into: Map<string, Sampled>, from: Map<string, Sampled>): void {
  for (const [fn, t] of from) {
    const seen = into.get(fn) ?? { us: 0, samples: 0 };
    into.set(fn, { us: seen.us + t.us, samples: seen.samples + t.samples });
  }
}

/**
 * The functions with the most self time per call, idle and V8's own work left out: their ms
 * per call, and the µs an average sample of theirs carries.
 */
function topFunctions(p: Profiled, n: number): [string, number, number][] {
  return [...p.self]
    .filter(([fn]) => fn !== IDLE && !OVERHEAD.has(fn))
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, n)
    .map(([fn, t]) => [fn, t.us / 1000 / p.calls, t.us / t.samples]);
}

/** A row of the profile: what loads which server, and the index of its floor's row. */
interface ProfileRow {
  name: string;
  server: DevServer;
  request: autocannon.Request;
  /** The status every answer must have: 200 unless the row measures a refusal. */
  expect?: number;
  floor?: number;
}

/** The functions a path's share of busy samples is read for, with the most on the stack. */
const STACK_TOP = 25;

/**
 * Rounds of profiles of each fence path that has a CPU target beside the floor it is held
 * against, alternated: three tables (busy time, self time, time on the stack).
 */
export async function benchProfile(
  servers: { fence: DevServer; floor: DevServer },
  quick: boolean,
): Promise<Table[]> {
  const seconds = quick ? 3 : 8;
  const rounds = quick ? 1 : 3;
  const prefix = `profile-${Date.now().toString(36)}`;
  await seedTickets(servers.fence.url, prefix);
  await seedFloorTickets(servers.floor.url);
  const { fence, floor } = servers;
  const rows: ProfileRow[] = [
    { name: "floor: one insert", server: floor, request: floorRequest(prefix, "one") },
    {
      name: "noop call",
      server: fence,
      request: rotating(`${prefix}-noop`, 20, () => NOOP),
      floor: 0,
    },
    {
      name: "cache hit",
      server: fence,
      request: rotating(`${prefix}-hit`, 20, () => REPEATED_READ),
      floor: 0,
    },
    {
      name: "refused call (malformed body)",
      server: fence,
      request: rotating(`${prefix}-bad`, 20, () => '{"tool":"noop","args":{}'),
      expect: 400,
      floor: 0,
    },
    {
      name: "floor: comment, keyed",
      server: floor,
      request: floorRequest(`${prefix}-fc`, "comment-keyed"),
    },
    {
      name: "add_comment",
      server: fence,
      request: commentRequest(prefix, `${prefix}-com`),
      floor: 4,
    },
    {
      name: "floor: ticket, keyed",
      server: floor,
      request: floorRequest(`${prefix}-ft`, "ticket-keyed"),
    },
    {
      name: "create_ticket",
      server: fence,
      request: rotating(`${prefix}-mut`, 3, (i) =>
        JSON.stringify({
          tool: "create_ticket",
          args: { ticket_id: `P-${prefix}-${i}` },
          idempotency_key: `k-profile-${prefix}-${i}`,
        }),
      ),
      floor: 6,
    },
  ];
  const profiled: Profiled[] = rows.map((r) => ({
    name: r.name,
    busy: [],
    calls: 0,
    self: new Map(),
    busySamples: 0,
    onStack: new Map(),
  }));
  const kept = join(PROFILE_DIR, prefix);
  mkdirSync(kept, { recursive: true });
  for (let round = 0; round < rounds; round++) {
    const order = rows.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const row = rows[i];
      const into = profiled[i];
      if (row === undefined || into === undefined) continue;
      process.stderr.write(`  profiling ${row.name}, round ${round + 1}…\n`);
      const { calls, profile } = await profileLoad(
        row.server,
        row.request,
        seconds,
        row.expect ?? 200,
      );
      const file = `${row.name.replace(/[^a-z0-9]+/gi, "-")}-${round + 1}.cpuprofile`;
      writeFileSync(join(kept, file), JSON.stringify(profile));
      const self = selfTimes(profile);
      into.busy.push(total(self, notIdle).us / 1000 / calls);
      into.calls += calls;
      add(into.self, self);
      const stack = stackSamples(profile);
      into.busySamples += stack.busy;
      for (const [fn, n] of stack.on) into.onStack.set(fn, (into.onStack.get(fn) ?? 0) + n);
    }
  }
  process.stderr.write(`kept the profiles in ${kept}\n`);
  const floorBusy = (i: number) => {
    const floor = rows[i]?.floor;
    return floor === undefined ? Number.NaN : median(profiled[floor]?.busy ?? []);
  };
  const perCall = (p: Profiled, keep: (fn: string) => boolean) =>
    total(p.self, keep).us / 1000 / p.calls;
  const usPerSample = (p: Profiled) => {
    const busy = total(p.self, notIdle);
    return busy.us / busy.samples;
  };
  const busy: Table = {
    title: "CPU profile of the workerd that runs the code: busy time per call",
    note:
      `V8's sampling profiler (every ${SAMPLING_US} µs) over wrangler dev's inspector, ${rounds} round(s) ` +
      `of ${seconds} s of autocannon (${CONNECTIONS} connections) per row after a 2 s warm-up, the rows ` +
      "alternated. Busy = every sample but idle: JavaScript, the native calls it makes (SQLite included) " +
      "and V8's own work (program, garbage collection), which the worker and its objects share on one " +
      "thread: the median round, each round's in brackets; V8's own and idle: over all rounds. A " +
      "sample's time is wall time, so time the host steals from the thread counts as busy: compare " +
      "rows of one run.",
    head: [
      "row",
      "calls",
      "busy ms/call",
      "of which V8 ms/call",
      "idle ms/call",
      "busy vs floor",
      "busy µs/sample",
    ],
    rows: profiled.map((p, i) => [
      p.name,
      String(p.calls),
      `${median(p.busy).toFixed(2)} (${p.busy.map((b) => b.toFixed(2)).join(", ")})`,
      perCall(p, (fn) => OVERHEAD.has(fn)).toFixed(2),
      perCall(p, (fn) => fn === IDLE).toFixed(2),
      vsFloor(median(p.busy) / floorBusy(i)),
      usPerSample(p).toFixed(0),
    ]),
  };
  const functions: Table = {
    title: "Where the busy time goes: self time per call, the top functions of each row",
    note:
      "Self time over all rounds: the samples in which the function itself was running (a native call " +
      "it makes, such as an RPC, SQLite's exec or a body read, counts as its own frame or as its " +
      "caller's). Files: the fence's bundle (index.js) or the floor's (worker.js), as wrangler builds them. " +
      `A sample carries the time since the one before it: ${SAMPLING_US} µs is asked for, but a ` +
      "loaded host samples less often (the row's busy µs/sample, above). A function whose samples " +
      "carry several times the row's was charged time the thread spent elsewhere (waiting for a core, " +
      "or woken from idle), which is not its cost.",
    head: ["row", "function", "ms/call", "µs/sample"],
    rows: profiled.flatMap((p) =>
      topFunctions(p, 15).map(([fn, ms, perSample]) => [
        p.name,
        fn,
        ms.toFixed(3),
        perSample.toFixed(0),
      ]),
    ),
  };
  const stack: Table = {
    title: "Where the busy time goes: share of busy samples on the stack, per function",
    note:
      "Each busy sample (idle and V8's own work left out) counted once for every function on its " +
      "stack, over all rounds: a function's share is how much of the path's JavaScript and native " +
      "work ran inside it, callees included; ms/call is that share of the path's median busy ms " +
      "per call. Counted in samples, so a sample that carries a wait for a core weighs as " +
      "much as any other.",
    head: ["row", "function", "share of busy", "ms/call"],
    rows: profiled.flatMap((p) =>
      [...p.onStack]
        .sort((a, b) => b[1] - a[1])
        .slice(0, STACK_TOP)
        .map(([fn, n]) => {
          const share = n / p.busySamples;
          return [p.name, fn, `${(100 * share).toFixed(1)}%`, (share * median(p.busy)).toFixed(3)];
        }),
    ),
  };
  return [busy, functions, stack];
}

/** A ratio to the row's floor, or nothing for a floor's own row. */
function vsFloor(ratio: number): string {
  return Number.isNaN(ratio) ? "" : `${ratio.toFixed(2)}x`;
}
