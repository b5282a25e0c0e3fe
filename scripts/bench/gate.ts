import { createHmac } from "node:crypto";
import { Bench } from "tinybench";
import { FENCE } from "../../demo/fence.ts";
import { readCall } from "../../src/core/body.ts";
import { canonicalize } from "../../src/core/canonical.ts";
import { gate, type RawCall } from "../../src/core/gate.ts";
import { validateArgs } from "../../src/core/validate.ts";
import { MAX_JSON_DEPTH } from "../../src/http/limits.ts";
import type { Table } from "./table.ts";

/** Payloads of the sizes the fence sees, in the forms it accepts. */
function payloads(): { name: string; raw: RawCall; json: string }[] {
  const call = (tool: string, args: object, key?: string) =>
    JSON.stringify({ tool, args, ...(key === undefined ? {} : { idempotency_key: key }) });
  const json = (text: string, contentType = "application/json") => ({
    contentType,
    text,
    headerKey: null,
    callerTools: null,
  });
  const logs = call("fetch_service_logs", { service: "auth-service", window: "24h" });
  const comment = {
    ticket_id: "T-1024",
    body: "Deploy failed at step 3; logs attached. ".repeat(10),
  };
  const big = {
    ticket_id: "T-2048",
    title: "Checkout latency above SLO in eu-west",
    body: "x".repeat(2_000),
    priority: "high",
  };
  const openai = JSON.stringify({
    type: "function",
    id: "call_1",
    function: { name: "add_comment", arguments: JSON.stringify(comment) },
  });
  return [
    { name: "noop", raw: json(call("noop", {})), json: call("noop", {}) },
    { name: "fetch_service_logs", raw: json(logs), json: logs },
    {
      name: "add_comment, OpenAI form",
      raw: { ...json(openai), headerKey: "k-bench-000001" },
      json: openai,
    },
    {
      name: "create_ticket, 2 KB body",
      raw: json(call("create_ticket", big, "k-bench-000002")),
      json: call("create_ticket", big, "k-bench-000002"),
    },
    {
      name: "fetch_service_logs, fenced model text",
      raw: json(`\`\`\`json\n${logs}\n\`\`\``, "text/plain"),
      json: logs,
    },
  ];
}

const encoder = new TextEncoder();

/** The floor: what any JSON-in, hash-out service pays for the same payload. */
async function floor(text: string): Promise<void> {
  const value: unknown = JSON.parse(text);
  await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(value)));
}

/**
 * Calls per measured iteration, awaited together. In Node, crypto.subtle.digest hops to the
 * libuv thread pool; one call at a time would time that hop's jitter, not the CPU work.
 */
const BATCH = 256;

async function batch(call: () => Promise<unknown>): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < BATCH; i++) pending.push(call());
  await Promise.all(pending);
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** µs per call of each task, the median over `rounds` runs of the whole bench. */
export async function measure(
  tasks: [string, () => unknown][],
  opts: { rounds: number; time: number; perIteration: number },
): Promise<Map<string, number>> {
  const samples = new Map<string, number[]>(tasks.map(([name]) => [name, []]));
  for (let r = 0; r < opts.rounds; r++) {
    const bench = new Bench({ time: opts.time, warmupTime: opts.time / 4 });
    for (const [name, fn] of tasks) bench.add(name, fn);
    await bench.warmup();
    await bench.run();
    for (const [name] of tasks) {
      const mean = bench.getTask(name)?.result?.mean ?? Number.NaN;
      samples.get(name)?.push((mean * 1_000) / opts.perIteration);
    }
  }
  return new Map([...samples].map(([name, xs]) => [name, median(xs)]));
}

type Payload = ReturnType<typeof payloads>[number];
type Tasks = [string, () => unknown][];
const LIMITS = { maxDepth: MAX_JSON_DEPTH };
/** The redaction digest as the worker keys it: HMAC-SHA256 (a bench key). */
const DIGEST = (text: string) => createHmac("sha256", "bench-key").update(text).digest("hex");

/** Whole-call tasks (gate, floor) and stage tasks of each payload, named by payload. */
async function tasksOf(list: Payload[]): Promise<{ whole: Tasks; stages: Tasks }> {
  const whole: Tasks = [];
  const stages: Tasks = [];
  for (const p of list) {
    const check = await gate(FENCE, p.raw, LIMITS, DIGEST);
    if (!check.ok) throw new Error(`bench payload ${p.name} does not pass the gate`);
    const { contract, args } = check.value;
    const read = readCall(p.raw.contentType, p.raw.text, p.raw.headerKey, LIMITS);
    const parsed = read.ok ? read.value.args : {};
    whole.push([`gate ${p.name}`, () => batch(() => gate(FENCE, p.raw, LIMITS, DIGEST))]);
    whole.push([`floor ${p.name}`, () => batch(() => floor(p.json))]);
    stages.push([`read ${p.name}`, () => readCall(p.raw.contentType, p.raw.text, null, LIMITS)]);
    stages.push([`validate ${p.name}`, () => validateArgs(contract, parsed)]);
    stages.push([`canonical ${p.name}`, () => canonicalize({ tool: contract.name, args })]);
    stages.push([`parse ${p.name}`, () => JSON.parse(p.json)]);
    // Parses too: the parse is taken back out when the table is built.
    stages.push([`stringify ${p.name}`, () => JSON.stringify(JSON.parse(p.json))]);
  }
  return { whole, stages };
}

function gateTable(list: Payload[], us: (name: string) => number, rounds: number): Table {
  const rows = list.map((p) => {
    const ratio = us(`gate ${p.name}`) / us(`floor ${p.name}`);
    return [
      p.name,
      String(p.raw.text.length),
      us(`gate ${p.name}`).toFixed(1),
      us(`floor ${p.name}`).toFixed(1),
      `${ratio.toFixed(2)}x`,
      ratio <= 2 ? "met" : "missed",
    ];
  });
  return {
    title: "Per-call CPU: the stateless gate against the floor",
    note:
      "gate() = content type, strict parse, envelope, contract validation, RFC 8785 canonical form, " +
      "SHA-256. Floor = JSON.parse + JSON.stringify + SHA-256 (crypto.subtle) of the same JSON. " +
      `Target: gate ≤ 2x floor. tinybench; µs per call = one batch of ${BATCH} calls awaited ` +
      `together / ${BATCH} (crypto.subtle hops to Node's thread pool, whose jitter a single ` +
      `call would time); median of ${rounds} round(s).`,
    head: ["payload", "bytes", "gate µs", "floor µs", "gate/floor", "≤ 2x"],
    rows,
  };
}

function stageTable(list: Payload[], us: (name: string) => number): Table {
  const rows = list.map((p) => {
    const [read, validate, canon, parse, both] = [
      "read",
      "validate",
      "canonical",
      "parse",
      "stringify",
    ].map((stage) => us(`${stage} ${p.name}`) || 0);
    const fence = (read ?? 0) + (validate ?? 0) + (canon ?? 0);
    return [
      p.name,
      ...[read, validate, canon, parse].map((x) => (x ?? 0).toFixed(2)),
      ((both ?? 0) - (parse ?? 0)).toFixed(2),
      `${(fence / (both ?? 0)).toFixed(2)}x`,
    ];
  });
  return {
    title: "Where the gate's time goes (synchronous stages, no hash)",
    note:
      "µs per call of each stage alone: the fence's strict parse + envelope (readCall), valibot " +
      "validation, RFC 8785 canonicalize; against V8's native JSON.parse and JSON.stringify. " +
      "The last column is (read + validate + canonical) / (parse + stringify).",
    head: [
      "payload",
      "read",
      "validate",
      "canonical",
      "JSON.parse",
      "JSON.stringify",
      "fence/native",
    ],
    rows,
  };
}

/** `gate()` against the floor, and the gate's stages against native JSON. */
export async function benchGate(quick: boolean): Promise<Table[]> {
  const list = payloads();
  const { whole, stages } = await tasksOf(list);
  const rounds = quick ? 1 : 3;
  const time = quick ? 300 : 600;
  const w = await measure(whole, { rounds, time, perIteration: BATCH });
  const st = await measure(stages, { rounds, time, perIteration: 1 });
  return [
    gateTable(list, (name) => w.get(name) ?? Number.NaN, rounds),
    stageTable(list, (name) => st.get(name) ?? Number.NaN),
  ];
}
