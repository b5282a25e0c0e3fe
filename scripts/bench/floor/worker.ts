/**
 * The bench's floor: the cheapest worker that keeps the fence's guarantee of one durable
 * record per call, committed before the answer. Bench-only (scripts/bench/floor/wrangler.toml;
 * never in the fence's bundle). `POST /one/{run}` forwards to the run's object, which commits
 * one SQLite insert and answers; `POST /two/{run}` makes two such RPCs one after the other,
 * the floor of a call recorded before and after it runs; `POST /three/{run}` makes three, the
 * floor of a mutation whose upstream is itself one durable write, reached the way the fence
 * reaches the demo tickets service (a service binding to an entrypoint that writes into one
 * object); `POST /ticket/{run}` puts the demo tickets service itself between the two steps,
 * sent what the fence sends it for a `create_ticket`: the floor of that mutation with its real
 * upstream; `POST /comment/{run}` does the same for an `add_comment`, on tickets `POST /seed`
 * creates first; `POST /ticket-keyed/{run}` and `POST /comment-keyed/{run}` are those two
 * routes keeping the request's `Idempotency-Key` as well, the least a mutation's retry needs:
 * the key taken in the first step's transaction (a key taken before answers what is stored
 * under it, and nothing is sent upstream), the upstream's answer stored under it in the
 * second's; `GET /healthz` writes nothing.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";

// The demo tickets service, bundled into this worker as into the fence, so the `ticket` and
// `comment` routes' middle step is the very upstream work the fence's mutations wait for.
export { TicketDesk } from "../../../demo/upstreams/TicketDesk.ts";
export { DemoUpstreams } from "../../../demo/upstreams/upstreams.ts";

/** The floor worker's bindings. */
interface FloorEnv {
  /** One object per run name, as the fence's RunLedger. */
  FLOOR: DurableObjectNamespace<FloorLedger>;
  /** The floor's upstream, reached as the fence reaches the demo's: a service binding. */
  UPSTREAM: Fetcher;
  /** The demo's upstreams, the fence's own code, over a service binding as in the fence. */
  DEMO: Fetcher;
}

/** One run's record: a table, one insert per step, each in its own transaction. */
export class FloorLedger extends DurableObject<FloorEnv> {
  constructor(ctx: DurableObjectState, env: FloorEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS entry (seq INTEGER PRIMARY KEY, step TEXT NOT NULL, body TEXT NOT NULL)",
    );
  }

  /** Whether this instance has made the keyed routes' table: only their objects have it. */
  private keyed = false;

  /** Commit one entry and return its sequence number. */
  record(step: string, body: string): number {
    return this.ctx.storage.transactionSync(() => this.insert(step, body));
  }

  /**
   * Take `key` and commit the first entry, in one transaction: the entry's seq, or what is
   * stored under a key taken before (its answer, null while its call has none yet).
   */
  begin(key: string, body: string): { seq: number } | { stored: string | null } {
    const { sql } = this.ctx.storage;
    if (!this.keyed) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS intent (key TEXT PRIMARY KEY, answer TEXT) WITHOUT ROWID",
      );
      this.keyed = true;
    }
    return this.ctx.storage.transactionSync(() => {
      const taken = sql.exec(
        "INSERT INTO intent (key) VALUES (?) ON CONFLICT DO NOTHING RETURNING key",
        key,
      );
      if (taken.toArray().length === 0) {
        const row = sql.exec<{ answer: string | null }>(
          "SELECT answer FROM intent WHERE key = ?",
          key,
        );
        return { stored: row.one().answer };
      }
      return { seq: this.insert("before", body) };
    });
  }

  /** Commit the second entry and store `answer` under `key`, in one transaction. */
  finish(key: string, answer: string): number {
    return this.ctx.storage.transactionSync(() => {
      const seq = this.insert("after", answer);
      this.ctx.storage.sql.exec("UPDATE intent SET answer = ? WHERE key = ?", answer, key);
      return seq;
    });
  }

  private insert(step: string, body: string): number {
    return this.ctx.storage.sql
      .exec<{ seq: number }>(
        "INSERT INTO entry (step, body) VALUES (?, ?) RETURNING seq",
        step,
        body,
      )
      .one().seq;
  }
}

/**
 * The upstream of the three-step route: an entrypoint that commits one insert into one object
 * shared by every run, as the demo tickets service keeps one object per tenant.
 */
export class FloorUpstream extends WorkerEntrypoint<FloorEnv> {
  override async fetch(request: Request): Promise<Response> {
    const seq = await this.env.FLOOR.getByName("upstream").record("upstream", await request.text());
    return Response.json({ seq });
  }
}

/**
 * The step a route makes between its two records: the seq it adds, if any, and the upstream's
 * answer. Throws when the upstream refuses.
 */
type Middle = (
  env: FloorEnv,
  run: string,
  first: number,
  body: string,
) => Promise<{ seq: number | null; answer: unknown }>;

/** A write into the one object shared by every run, over a service binding. */
const upstreamWrite: Middle = async (env, _run, _first, body) => {
  const answer = await env.UPSTREAM.fetch("https://upstream/write", { method: "POST", body });
  const parsed = (await answer.json()) as { seq: number };
  return { seq: parsed.seq, answer: parsed };
};

/** Tickets the `comment` route writes to in turn, as the fence's comment row does. */
const COMMENTED_TICKETS = 20;
let commented = 0;

/** POST `args` to the demo tickets service at `path` with the headers the fence sends. */
async function demoCall(
  env: FloorEnv,
  path: string,
  run: string,
  key: string,
  args: unknown,
): Promise<unknown> {
  const answer = await env.DEMO.fetch(`https://demo${path}`, {
    method: "POST",
    headers: {
      "X-Toolfence-Tenant": "bench-floor",
      "X-Toolfence-Run": run,
      "Idempotency-Key": key,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(args),
  });
  if (!answer.ok) throw new Error(`tickets service: HTTP ${answer.status}: ${await answer.text()}`);
  return answer.json();
}

/** The demo tickets service's `create_ticket`, as the fence sends it, for entry `first`. */
const demoTicket: Middle = async (env, run, first) => {
  const args = { ticket_id: `F-${run}-${first}`, priority: "normal" };
  const answer = await demoCall(env, "/tickets", run, `floor-${run}-${first}`, args);
  return { seq: null, answer };
};

/** The demo tickets service's `add_comment` on the next seeded ticket, as the fence sends it. */
const demoComment: Middle = async (env, run, first) => {
  const ticket = `FC-${commented++ % COMMENTED_TICKETS}`;
  const args = { ticket_id: ticket, body: "seen" };
  const path = `/tickets/${ticket}/comments`;
  const answer = await demoCall(env, path, run, `floor-${run}-${first}`, args);
  return { seq: null, answer };
};

/** Create the tickets the `comment` route writes to. */
async function seedTickets(env: FloorEnv): Promise<void> {
  for (let n = 0; n < COMMENTED_TICKETS; n++) {
    const args = { ticket_id: `FC-${n}`, priority: "normal" };
    await demoCall(env, "/tickets", "seed", `floor-seed-${n}`, args);
  }
}

/**
 * Each route's steps: a record, its middle step (if any), and a second record (if `after`);
 * a `keyed` route's records keep the request's idempotency key too.
 */
const ROUTES: Record<string, { middle: Middle | null; after: boolean; keyed?: true }> = {
  one: { middle: null, after: false },
  two: { middle: null, after: true },
  three: { middle: upstreamWrite, after: true },
  ticket: { middle: demoTicket, after: true },
  comment: { middle: demoComment, after: true },
  "ticket-keyed": { middle: demoTicket, after: true, keyed: true },
  "comment-keyed": { middle: demoComment, after: true, keyed: true },
};

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ ok: true });
    if (url.pathname === "/seed" && request.method === "POST") {
      await seedTickets(env);
      return Response.json({ seeded: COMMENTED_TICKETS });
    }
    const [, kind, run] = url.pathname.split("/");
    const route = kind === undefined ? undefined : ROUTES[kind];
    if (request.method !== "POST" || run === undefined || route === undefined) {
      return new Response("not found", { status: 404 });
    }
    const key = route.keyed ? request.headers.get("Idempotency-Key") : null;
    if (route.keyed && key === null) return new Response("no Idempotency-Key", { status: 400 });
    const body = await request.text();
    const ledger = env.FLOOR.getByName(run);
    const begun =
      key === null ? { seq: await ledger.record("before", body) } : await ledger.begin(key, body);
    if ("stored" in begun) {
      // A retry: what its first call stored, or 409 while that call has no answer yet.
      if (begun.stored === null) return new Response("in progress", { status: 409 });
      return new Response(begun.stored, { headers: { "Content-Type": "application/json" } });
    }
    const seq = [begun.seq];
    let answer: unknown = null;
    try {
      const middle = route.middle === null ? null : await route.middle(env, run, begun.seq, body);
      if (middle !== null && middle.seq !== null) seq.push(middle.seq);
      answer = middle?.answer ?? null;
    } catch (e) {
      return new Response(String(e), { status: 502 });
    }
    if (key !== null) seq.push(await ledger.finish(key, JSON.stringify(answer)));
    else if (route.after) seq.push(await ledger.record("after", body));
    return Response.json({ seq });
  },
} satisfies ExportedHandler<FloorEnv>;
