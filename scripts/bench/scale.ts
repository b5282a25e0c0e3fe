/**
 * `npm run bench -- --scale`: many runs in parallel against one `wrangler dev` on loopback,
 * bounded (at most MAX_CLIENTS requests in flight), to show where throughput comes from: the
 * same number of clients into one run (one RunLedger, single-threaded) against spread over as
 * many runs (one object each), and capped mutations whose tenant-wide claims land on one
 * object per target. Figures only; docs/scaling.md reads them.
 */
import { authHeaders, DEFAULT_KEY } from "../lib/target.ts";
import type { Table } from "./table.ts";

/** The most requests in flight at once: a bound on what the simulation asks of the machine. */
const MAX_CLIENTS = 32;
const HEADERS = { ...authHeaders(DEFAULT_KEY), "Content-Type": "application/json" };

/** What a client sends as its `n`th call: the run it goes to and the body. */
type Plan = (client: number, n: number) => { run: string; body: string };

/**
 * `clients` loops, each sending its next call when the last answered, for `seconds`; fails,
 * naming the answers by status, unless every call was answered 200 (a cell of refusals would
 * measure the brake, not the load).
 */
async function drive(url: string, clients: number, seconds: number, plan: Plan): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const failed = new Map<number, number>();
  const loop = async (client: number) => {
    for (let n = 0; Date.now() < until; n++) {
      const { run, body } = plan(client, n);
      const res = await fetch(`${url}/v1/runs/${run}/calls`, {
        method: "POST",
        headers: HEADERS,
        body,
      });
      await res.arrayBuffer();
      if (res.status === 200) done++;
      else failed.set(res.status, (failed.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: Math.min(clients, MAX_CLIENTS) }, (_, c) => loop(c)));
  if (failed.size > 0) {
    const counts = [...failed].map(([status, n]) => `${n} × ${status}`).join(", ");
    throw new Error(`load simulation: expected every answer 200, got ${done} × 200, ${counts}`);
  }
  return done / seconds;
}

const NOOP = JSON.stringify({ tool: "noop", args: {} });

function plans(prefix: string): Record<string, (clients: number) => Plan> {
  return {
    "noop, every client into one run": () => () => ({ run: `${prefix}-one`, body: NOOP }),
    "noop, one run per client": () => (client) => ({ run: `${prefix}-r${client}`, body: NOOP }),
    "create_ticket (tenant-wide claim), one run per client, new ticket each call":
      (clients) => (client, n) => ({
        // A run may make 3 mutations (contracts/policy.json): each client moves on to a new run.
        run: `${prefix}-m${clients}-${client}-${Math.floor(n / 3)}`,
        body: JSON.stringify({
          tool: "create_ticket",
          args: { ticket_id: `S-${prefix}-${clients}-${client}-${n}` },
          idempotency_key: `k-scale-${prefix}-${clients}-${client}-${n}`,
        }),
      }),
  };
}

export async function benchScale(url: string, quick: boolean): Promise<Table> {
  const prefix = `scale-${Date.now().toString(36)}`;
  const levels = quick ? [1, 8] : [1, 4, 16, 32];
  const seconds = quick ? 3 : 6;
  const rows: string[][] = [];
  for (const [name, planOf] of Object.entries(plans(prefix))) {
    const cells = [name];
    for (const clients of levels) {
      const rate = await drive(url, clients, seconds, planOf(clients));
      process.stderr.write(`  ${name}, ${clients} clients: ${Math.round(rate)} calls/s\n`);
      cells.push(Math.round(rate).toString());
    }
    rows.push(cells);
  }
  return {
    title: "Load simulation: calls/s by concurrent clients",
    note:
      `One \`wrangler dev\` on loopback; each client sends its next call when the last answered, for ${seconds} s per cell ` +
      `(at most ${MAX_CLIENTS} in flight). Locally every object shares one workerd process and the machine's cores, so ` +
      "this shows the shape (one run serialises, many runs spread), not a deployed figure.",
    head: ["load", ...levels.map((l) => `${l} clients`)],
    rows,
  };
}
