import autocannon from "autocannon";
import { authHeaders, DEFAULT_KEY } from "../lib/target.ts";
import { type CpuReading, readCpu } from "./proc-cpu.ts";
import { BENCH_OPEN_RUNS } from "./servers.ts";
import type { Table } from "./table.ts";

/**
 * The floor worker's routes, each a floor a path is held against: its row's name, the label of
 * a ratio to it, and its calls per run (as many as the fence row it is the floor of makes).
 */
const FLOORS = {
  one: {
    name: "floor: one insert (worker → object, 1 SQLite insert)",
    label: "one-insert",
    calls: 20,
  },
  two: {
    name: "floor: two steps (2 sequential RPCs, 1 insert each)",
    label: "two-step",
    calls: 20,
  },
  three: {
    name: "floor: three steps (before, upstream over a service binding + 1 insert, after)",
    label: "three-step",
    calls: 3,
  },
  ticket: {
    name: "floor: two steps around the demo's create_ticket (before, the tickets service, after)",
    label: "ticket-step",
    calls: 3,
  },
  comment: {
    name: "floor: two steps around the demo's add_comment (before, the tickets service, after)",
    label: "comment-step",
    calls: 3,
  },
  // The two above keeping an idempotency key as well: their own table (keyed.ts), not the
  // end-to-end one's floors.
  "ticket-keyed": {
    name: "floor: the ticket floor keeping an idempotency key (taken before, its answer stored after)",
    label: "keyed ticket-step",
    calls: 3,
  },
  "comment-keyed": {
    name: "floor: the comment floor keeping an idempotency key (taken before, its answer stored after)",
    label: "keyed comment-step",
    calls: 3,
  },
} as const;

/** Which floor a path is held against. */
type FloorKind = keyof typeof FLOORS;

/** Each mutation's floor and that floor keeping an idempotency key. */
const KEYED_FLOOR: Partial<Record<FloorKind, FloorKind>> = {
  comment: "comment-keyed",
  ticket: "ticket-keyed",
};

/** The floors that keep an idempotency key: each request sends one of its own. */
const KEYED: ReadonlySet<string> = new Set(Object.values(KEYED_FLOOR));

/** One load: what autocannon sends, where, and how to label it. */
export interface Scenario {
  /** Row label. */
  name: string;
  /** The server: the fence, or the floor worker. */
  server: "fence" | "floor";
  /** The request, rewritten per request when `setupRequest` is given. */
  request: autocannon.Request;
  /** The floor the row is compared with, if any. */
  floor?: FloorKind;
  /** The least ratio to that floor the path should reach, if it has a target. */
  target?: number;
  /** Calls per run of the row and of its floor, when not the floor's default. */
  callsPerRun?: number;
  /** The status every answer of the row must have: 200 unless the row measures a refusal. */
  expect?: number;
}

const JSON_HEADERS = { ...authHeaders(DEFAULT_KEY), "Content-Type": "application/json" };
export const NOOP = JSON.stringify({ tool: "noop", args: {} });
export const REPEATED_READ = JSON.stringify({
  tool: "fetch_service_logs",
  args: { service: "checkout", window: "5m" },
});

/**
 * A request whose run (and body) change per request: a run may make 20 paid calls and
 * 3 mutations (contracts/policy.json), so a load rotates runs before it hits the brakes.
 */
export function rotating(
  prefix: string,
  callsPerRun: number,
  body: (i: number) => string,
): autocannon.Request {
  let i = 0;
  return {
    method: "POST",
    headers: JSON_HEADERS,
    setupRequest: (req) => {
      const n = i++;
      return {
        ...req,
        path: `/v1/runs/${prefix}-${Math.floor(n / callsPerRun)}/calls`,
        body: body(n),
      };
    },
  };
}

/**
 * A floor request of `kind`, its run rotated as often as the fence row it is the floor of
 * (`callsPerRun`, or the default of that kind).
 */
export function floorRequest(
  prefix: string,
  kind: FloorKind,
  callsPerRun: number = FLOORS[kind].calls,
): autocannon.Request {
  let i = 0;
  const headers = { "Content-Type": "application/json" };
  const keyed = KEYED.has(kind);
  return {
    method: "POST",
    headers,
    setupRequest: (req) => {
      const n = i++;
      const path = `/${kind}/${prefix}-${Math.floor(n / callsPerRun)}`;
      const key = keyed ? { headers: { ...headers, "Idempotency-Key": `k-${prefix}-${n}` } } : {};
      return { ...req, path, body: NOOP, ...key };
    },
  };
}

/** The floor worker's rows, one per route but the keyed ones. */
function floorScenarios(prefix: string): Scenario[] {
  const kinds = (Object.keys(FLOORS) as FloorKind[]).filter((kind) => !KEYED.has(kind));
  return kinds.map((kind) => ({
    name: FLOORS[kind].name,
    server: "floor",
    request: floorRequest(`${prefix}-${kind}`, kind),
  }));
}

/**
 * The rows in the order they run: each fence row that has a floor right after its own run of
 * that floor, so the two meet the same minute of a shared host. `pairs` maps the index of each
 * such fence row to the index of its floor run.
 */
function withPairedFloors(list: Scenario[], prefix: string) {
  const rows: Scenario[] = [];
  const pairs = new Map<number, number>();
  for (const s of list) {
    if (s.floor !== undefined) {
      pairs.set(rows.length + 1, rows.length);
      const request = floorRequest(`${prefix}-pair${rows.length}`, s.floor, s.callsPerRun);
      rows.push({ name: `${FLOORS[s.floor].name}, beside ${s.name}`, server: "floor", request });
    }
    rows.push(s);
  }
  return { rows, pairs };
}

/** Calls per run of the row that shows what starting a run costs. */
const LONG_RUN = 1000;

/** Tickets the comment row writes to, created before the rows run. */
const COMMENTED_TICKETS = 20;

function scenarios(prefix: string, cacheLabel: string): Scenario[] {
  return [
    {
      name: "bare route GET /healthz",
      server: "fence",
      request: { method: "GET", path: "/healthz" },
    },
    ...floorScenarios(prefix),
    {
      name: cacheLabel,
      server: "fence",
      request: rotating(`${prefix}-hit`, 20, () => REPEATED_READ),
      floor: "one",
      target: 0.85,
    },
    {
      name: "read miss (fetch_service_logs, new args each call)",
      server: "fence",
      request: rotating(`${prefix}-miss`, 20, (i) =>
        JSON.stringify({ tool: "fetch_service_logs", args: { service: `svc-${i}`, window: "5m" } }),
      ),
      floor: "two",
    },
    {
      name: "mutation (add_comment: 2 ledger steps + tickets object)",
      server: "fence",
      request: commentRequest(prefix, `${prefix}-com`),
      floor: "comment",
      target: 0.85,
    },
    {
      name: "mutation (create_ticket: target claim + 2 ledger steps + tickets object)",
      server: "fence",
      request: rotating(`${prefix}-mut`, 3, (i) =>
        JSON.stringify({
          tool: "create_ticket",
          args: { ticket_id: `B-${prefix}-${i}` },
          idempotency_key: `k-bench-${prefix}-${i}`,
        }),
      ),
      floor: "ticket",
      target: 0.85,
    },
    {
      name: "refused call (malformed body, 400 by design: gate + 1 ledger write)",
      server: "fence",
      request: rotating(`${prefix}-bad`, 20, () => '{"tool":"noop","args":{}'),
      expect: 400,
      floor: "one",
      target: 0.85,
    },
    {
      name: "noop call (gate + 1 ledger call, answered by the fence)",
      server: "fence",
      request: rotating(`${prefix}-noop`, 20, () => NOOP),
      floor: "one",
      target: 0.85,
    },
    {
      // What a new run costs: the same call, its run and its floor's run 50 times as long.
      name: `noop call, a new run every ${LONG_RUN} calls (its floor's too)`,
      server: "fence",
      request: rotating(`${prefix}-noop-long`, LONG_RUN, () => NOOP),
      floor: "one",
      callsPerRun: LONG_RUN,
    },
  ];
}

/**
 * An `add_comment` on the tickets `seedTickets(url, prefix)` created, each with a key of its own,
 * in runs of `runs` rotated every 3 calls (the policy's mutation cap).
 */
export function commentRequest(prefix: string, runs: string): autocannon.Request {
  return rotating(runs, 3, (i) =>
    JSON.stringify({
      tool: "add_comment",
      args: { ticket_id: ticketOf(prefix, i % COMMENTED_TICKETS), body: "seen" },
      idempotency_key: `k-bench-${runs}-c${i}`,
    }),
  );
}

function ticketOf(prefix: string, n: number): string {
  return `C-${prefix}-${n}`;
}

/** Create the tickets the floor's comment route writes to. */
export async function seedFloorTickets(url: string): Promise<void> {
  const response = await fetch(`${url}/seed`, { method: "POST" });
  if (response.status !== 200)
    throw new Error(`seeding the floor's tickets: HTTP ${response.status}`);
}

/** Create the tickets the comment row writes to (three per run: the policy's mutation cap). */
export async function seedTickets(url: string, prefix: string): Promise<void> {
  for (let n = 0; n < COMMENTED_TICKETS; n++) {
    const response = await fetch(`${url}/v1/runs/${prefix}-seed-${Math.floor(n / 3)}/calls`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({
        tool: "create_ticket",
        args: { ticket_id: ticketOf(prefix, n) },
        idempotency_key: `k-bench-${prefix}-seed-${n}`,
      }),
    });
    if (response.status !== 200) throw new Error(`seeding a ticket: HTTP ${response.status}`);
  }
}

/** What the repeated read is today: a cache hit once the cache serves it, else a miss. */
async function cacheLabel(url: string, prefix: string): Promise<string> {
  const send = () =>
    fetch(`${url}/v1/runs/${prefix}-probe/calls`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: REPEATED_READ,
    });
  await send();
  const second = await send();
  const xCache = second.headers.get("X-Cache") ?? "none";
  return xCache.startsWith("hit")
    ? `cache hit (repeated read, X-Cache: ${xCache})`
    : `repeated identical read (X-Cache: ${xCache}: no cache hit yet)`;
}

/** Figures of one scenario over all rounds. */
interface Figures {
  scenario: Scenario;
  rps: number[];
  p50: number[];
  p99: number[];
  /** CPU ms per call of the row's server (its whole process group), per round; NaN: unknown. */
  cpu: number[];
  /** Of that, the workerd that runs the worker and its objects (proc-cpu.ts), per round. */
  workerCpu: number[];
  failed: number;
}

/** A table row's cells. */
export type Row = string[];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : mean(s.slice(mid - 1, mid + 1));
}

/**
 * Every scenario under the same load, one after another, in `ROUNDS` rounds, the fence's and
 * the floor worker's rows interleaved and the order reversed every other round, so a slow
 * minute of a shared machine, or what one row leaves behind, spreads over all rows alike; the
 * table takes each row's median round, so one slow round does not move it.
 */
export const ROUNDS = 5;
const CONNECTIONS = 8;

/** The two servers under test. */
export interface Servers {
  /** The fence's `wrangler dev`. */
  fence: string;
  /** The floor worker's `wrangler dev`. */
  floor: string;
  /** Each server's process group, whose CPU time per call a row reports; absent: not shown. */
  groups?: { fence: number | null; floor: number | null };
}

/**
 * Run `list` against `servers`, interleaved, for `duration` s per row and round, over
 * `connections` connections.
 */
export async function measureRows(
  servers: Servers,
  list: Scenario[],
  duration: number,
  connections = CONNECTIONS,
): Promise<Figures[]> {
  const figures: Figures[] = list.map((scenario) => ({
    scenario,
    rps: [],
    p50: [],
    p99: [],
    cpu: [],
    workerCpu: [],
    failed: 0,
  }));
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round runs the rows in reverse: state a row leaves behind (objects still in
    // memory, deferred writes) slows the rows after it, so no row always comes last.
    const order = round % 2 === 0 ? figures : [...figures].reverse();
    for (const f of order) {
      const url = servers[f.scenario.server];
      const group = servers.groups?.[f.scenario.server] ?? null;
      const port = Number(new URL(url).port);
      const before = group === null ? null : readCpu(group, port);
      const r = await autocannon({
        url,
        connections,
        duration,
        requests: [f.scenario.request],
      });
      f.rps.push(r.requests.average);
      f.p50.push(r.latency.p50);
      f.p99.push(r.latency.p99);
      const after = group === null ? null : readCpu(group, port);
      // CPU ms per call between the two readings; NaN when either is unknown.
      const spent = (k: keyof CpuReading) => {
        const [a, b] = [before?.[k] ?? null, after?.[k] ?? null];
        return a === null || b === null ? Number.NaN : (b - a) / r.requests.total;
      };
      f.cpu.push(spent("group"));
      f.workerCpu.push(spent("worker"));
      const wrong = unexpectedAnswers(r, f.scenario.expect ?? 200);
      if (wrong !== null)
        throw new Error(`bench row "${f.scenario.name}", round ${round + 1}: ${wrong}`);
      f.failed += r.non2xx + r.errors + r.timeouts;
      process.stderr.write(`  ${f.scenario.name}: ${Math.round(r.requests.average)} req/s\n`);
    }
  }
  return figures;
}

/** What of a load's outcome the answer check reads. */
export type Answers = Pick<autocannon.Result, "statusCodeStats" | "errors" | "timeouts">;

/**
 * Null when every answer of a load had the status `expected`, else what came back instead,
 * counted by status (and requests that got no answer): a row whose answers are not all what
 * its label says (a call refused by a brake the load ran into) measures something else.
 */
export function unexpectedAnswers(r: Answers, expected: number): string | null {
  const counts = Object.entries(r.statusCodeStats ?? {})
    .map(([status, s]) => [status, s?.count ?? 0] as const)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => Number(a) - Number(b));
  const others = counts.filter(([status]) => Number(status) !== expected);
  if (others.length === 0 && r.errors === 0 && r.timeouts === 0 && counts.length > 0) return null;
  const parts = counts.map(([status, n]) => `${n} × ${status}`);
  if (r.errors > 0) parts.push(`${r.errors} errors`);
  if (r.timeouts > 0) parts.push(`${r.timeouts} timeouts`);
  return `expected every answer ${expected}, got ${parts.join(", ") || "no answer"}`;
}

/** Each round's figure of a row over its paired floor's in the same round. */
export function roundRatios(xs: number[], floors: number[]): number[] {
  return xs.map((x, r) => x / (floors[r] ?? Number.NaN));
}

/** The median of the rounds' ratios as a cell, `label` after it, each round's in brackets. */
export function ratioCell(xs: number[], floors: number[], label = ""): string {
  return roundsCell(roundRatios(xs, floors), label);
}

/** Rounds' ratios as a cell: their median, `label` after it, each round's in brackets. */
function roundsCell(rounds: number[], label: string): string {
  const named = label === "" ? "" : ` ${label}`;
  return `${median(rounds).toFixed(2)}x${named} (${rounds.map((r) => r.toFixed(2)).join(", ")})`;
}

/** The median over rounds of a row's figure over its paired floor's in the same round. */
export function pairedRatio(xs: number[], floors: number[]): number {
  return median(roundRatios(xs, floors));
}

/**
 * A row's CPU per call, all of its server and its worker's workerd alone ("all / worker"), and
 * each as a multiple of its paired floor's, as cells ("" when unknown).
 */
function cpuCells(f: Figures, floor: Figures | undefined): [string, string] {
  const known = (x: number, text: string) => (Number.isFinite(x) ? text : "");
  const perCall = (xs: number[]) => known(median(xs), median(xs).toFixed(2));
  const ratio = (xs: number[], floors: number[] | undefined) => {
    const r = floors === undefined ? Number.NaN : pairedRatio(xs, floors);
    return known(r, `${r.toFixed(2)}x`);
  };
  const join = (cells: string[]) => cells.filter((cell) => cell !== "").join(" / ");
  return [
    join([perCall(f.cpu), perCall(f.workerCpu)]),
    join([ratio(f.cpu, floor?.cpu), ratio(f.workerCpu, floor?.workerCpu)]),
  ];
}

/**
 * A row's ratio to its paired floor (the median round, each round's in brackets) and the
 * verdict on its target: the median's, with how many rounds reached the target.
 */
function floorCells(f: Figures, floor: Figures | undefined): [string, string] {
  const kind = f.scenario.floor;
  if (kind === undefined || floor === undefined) return ["", ""];
  const rounds = roundRatios(f.rps, floor.rps);
  const ratio = median(rounds);
  const { label } = FLOORS[kind];
  const cell = roundsCell(rounds, label);
  const target = f.scenario.target;
  if (target === undefined) return [cell, ""];
  const reached = rounds.filter((r) => r >= target).length;
  const verdict = ratio >= target ? "met" : "missed";
  return [cell, `≥ ${target}x ${label}: ${verdict} (${reached} of ${rounds.length} rounds)`];
}

export async function benchHttp(servers: Servers, quick: boolean): Promise<Table> {
  const prefix = `bench-${Date.now().toString(36)}`;
  const duration = quick ? 2 : 6;
  const label = await cacheLabel(servers.fence, prefix);
  await seedTickets(servers.fence, prefix);
  await seedFloorTickets(servers.floor);
  const { rows: list, pairs } = withPairedFloors(scenarios(prefix, label), prefix);
  const figures = await measureRows(servers, list, duration);
  const bare = median(figures[0]?.rps ?? [0]);
  const paired = new Set(pairs.values());
  const rows = figures.flatMap((f, i) => {
    if (paired.has(i)) return [];
    const pair = pairs.get(i);
    const floor = pair === undefined ? undefined : figures[pair];
    return [
      [
        f.scenario.name,
        Math.round(median(f.rps)).toString(),
        median(f.p50).toFixed(0),
        Math.max(...f.p99).toFixed(0),
        String(f.failed),
        `${(median(f.rps) / bare).toFixed(2)}x`,
        ...floorCells(f, floor),
        ...cpuCells(f, floor),
      ],
    ];
  });
  const spread = (figures[0]?.rps ?? []).map((x) => Math.round(x)).join(" and ");
  return {
    title: "End to end through wrangler dev, against the floor",
    note:
      `autocannon, ${CONNECTIONS} connections, loopback, ${ROUNDS} rounds of ${duration} s per row, the rows ` +
      `interleaved, in reverse order every other round (req/s, p50 and CPU: the median round; p99: the worst ` +
      `round; bare route: ${spread} req/s). ` +
      "Two `wrangler dev` servers: the fence, its demo log backend set to answer at once " +
      "(`DEMO_LOG_LATENCY_MS` 0-0 in the demo upstreams' config, checked before the rows run), and the bench-only floor worker (scripts/bench/floor/), whose route forwards to a " +
      "Durable Object that commits one SQLite insert (or two sequential RPCs of one insert each; or " +
      'three, the middle one on a shared "upstream" object, the floor of a mutation whose upstream is ' +
      "itself one durable write, as the demo tickets object is; or two around the demo tickets service " +
      "itself, bundled into the floor worker and sent what the fence sends for a create_ticket, or for " +
      "an add_comment). " +
      "Each floor row starts a new run as " +
      "often as the fence row it is the floor of (every 20 calls; every 3 for mutations, the policy's " +
      `cap; every ${LONG_RUN} for the row that shows what a new run costs). ` +
      "The floor is what one durable record per call costs. Each fence row that has a floor runs " +
      "right beside its own run of that floor, in every round (those runs are not listed; the floor " +
      "rows above are the floors alone), and its ratios to the floor are the median over the rounds of " +
      "the row over that adjacent floor run, so a slow minute of the shared host moves both sides of a " +
      "ratio alike; vs floor gives each round's ratio in brackets, and a target's verdict is the " +
      "median's, with how many rounds reached the target. The refused row's 400s are by design. " +
      `The fence differs from the demo in its policy's open-run caps alone, ${BENCH_OPEN_RUNS.toLocaleString("en")} per key ` +
      "and per tenant where the demo keeps the defaults (100 and 1,000), as its rows open thousands of runs under one key; every answer " +
      "of a row is checked to be 200 (the refused row's 400), or the bench fails. Requests authenticate with the development " +
      "key (no KV read). Latency in ms. CPU ms per call: the user and system time of the row's " +
      "`wrangler dev` (its Node process and workerd, from /proc) over the calls it answered, which a " +
      "busy host's steal moves less than req/s, then after the slash the part of it spent by the " +
      "workerd that runs the worker and its objects (wrangler dev puts a second workerd in front, " +
      "which only forwards each request, at a like cost for a row and its floor); CPU vs floor is each " +
      "over the adjacent floor run's (lower is better).",
    head: [
      "route",
      "req/s",
      "p50 ms",
      "p99 ms",
      "non-2xx",
      "vs bare",
      "vs floor",
      "target",
      "CPU ms/call (all / worker)",
      "CPU vs floor (all / worker)",
    ],
    rows,
  };
}

/** The rows the state comparison runs (each the start of a row's name). */
const STATE_ROWS = [
  FLOORS.one.name,
  FLOORS.two.name,
  FLOORS.three.name,
  FLOORS.comment.name,
  "noop call (gate",
  "mutation (add_comment",
];

/** A row of the state comparison: req/s and worker CPU ms per call, per round. */
export interface StateFigures {
  rps: number[];
  workerCpu: number[];
  /** The name of its floor's row, for a fence row that has one among the state rows. */
  floor: string | null;
}

/**
 * The scenarios whose names start with one of `names`, their runs named after `prefix`, with
 * the tickets their comment rows write to created on both servers first.
 */
async function seededScenarios(
  servers: Servers,
  prefix: string,
  names: readonly string[],
): Promise<Scenario[]> {
  await seedTickets(servers.fence, prefix);
  await seedFloorTickets(servers.floor);
  const all = scenarios(prefix, "cache hit");
  return all.filter((s) => names.some((name) => s.name.startsWith(name)));
}

/** The floors' rows and the fence's noop and comment rows, per round. */
export async function stateRows(
  servers: Servers,
  duration: number,
): Promise<Map<string, StateFigures>> {
  const prefix = `state-${Date.now().toString(36)}`;
  const picked = await seededScenarios(servers, prefix, STATE_ROWS);
  const figures = await measureRows(servers, picked, duration);
  return new Map(
    figures.map((f) => {
      const kind = f.scenario.floor;
      const floor = kind === undefined ? null : FLOORS[kind].name;
      return [f.scenario.name, { rps: f.rps, workerCpu: f.workerCpu, floor }];
    }),
  );
}

/** The rows of the one-connection table (each the start of a row's name). */
const CRITICAL_ROWS = ["noop call (gate", "mutation (add_comment", "mutation (create_ticket"];

/** A row measured over one connection beside its floor: req/s per round of each. */
export interface CriticalFigures {
  name: string;
  floor: string;
  rps: number[];
  floorRps: number[];
}

/**
 * The `noop` and both mutations, each beside its floor, over one connection: a call waits for
 * its own steps only, one after another (critical.ts says what one thread does to steps asked
 * at the same time).
 */
export async function criticalRows(servers: Servers, duration: number): Promise<CriticalFigures[]> {
  const prefix = `critical-${Date.now().toString(36)}`;
  const picked = await seededScenarios(servers, prefix, CRITICAL_ROWS);
  const { rows, pairs } = withPairedFloors(picked, prefix);
  const figures = await measureRows(servers, rows, duration, 1);
  return [...pairs].flatMap(([row, floor]) => {
    const [f, g] = [figures[row], figures[floor]];
    const kind = f?.scenario.floor;
    if (f === undefined || g === undefined || kind === undefined) return [];
    return [{ name: f.scenario.name, floor: FLOORS[kind].name, rps: f.rps, floorRps: g.rps }];
  });
}

/** A row's req/s and its worker's CPU ms per call, per round. */
type Measured = Pick<Figures, "rps" | "workerCpu">;

/** A mutation measured beside its floor keeping a key, and beside its floor as it is. */
export interface KeyedFigures {
  name: string;
  fence: Measured;
  keyedFloor: Measured;
  floor: Measured;
}

/**
 * Both mutations, each after its end-to-end floor and right beside that floor keeping an
 * idempotency key, under the end-to-end table's load: what the key costs the least design that
 * keeps it, and the fence against that.
 */
export async function keyedRows(servers: Servers, duration: number): Promise<KeyedFigures[]> {
  const prefix = `keyed-${Date.now().toString(36)}`;
  const picked = await seededScenarios(servers, prefix, ["mutation ("]);
  const list = picked.flatMap((s): Scenario[] => {
    const keyed = s.floor === undefined ? undefined : KEYED_FLOOR[s.floor];
    if (s.floor === undefined || keyed === undefined) return [];
    const request = floorRequest(`${prefix}-${s.floor}`, s.floor);
    const plain: Scenario = { name: FLOORS[s.floor].name, server: "floor", request };
    return [plain, { ...s, floor: keyed, target: undefined }];
  });
  // Each mutation's rows run as its plain floor, its keyed floor (paired), then the fence row.
  const { rows, pairs } = withPairedFloors(list, prefix);
  const figures = await measureRows(servers, rows, duration);
  return [...pairs].flatMap(([row, keyed]) => {
    const [fence, keyedFloor, floor] = [figures[row], figures[keyed], figures[keyed - 1]];
    if (fence === undefined || keyedFloor === undefined || floor === undefined) return [];
    return [{ name: fence.scenario.name, fence, keyedFloor, floor }];
  });
}
