/**
 * The bench's floor: the cheapest worker that keeps the fence's guarantee of one durable
 * record per call, committed before the answer. Bench-only (scripts/bench/floor/wrangler.toml;
 * never in the fence's bundle). `POST /one/{run}` forwards to the run's object, which commits
 * one SQLite insert and answers; `POST /two/{run}` makes two such RPCs one after the other,
 * the floor of a call recorded before and after it runs; `POST /three/{run}` makes three, the
 * floor of a mutation whose upstream is itself one durable write, reached the way the fence
 * reaches the demo tickets service (a service binding to an entrypoint that writes into one
 * object); `GET /healthz` writes nothing.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";

/** The floor worker's bindings. */
interface FloorEnv {
  /** One object per run name, as the fence's RunLedger. */
  FLOOR: DurableObjectNamespace<FloorLedger>;
  /** The floor's upstream, reached as the fence reaches the demo's: a service binding. */
  UPSTREAM: Fetcher;
}

/** One run's record: a table, one insert per step, each in its own transaction. */
export class FloorLedger extends DurableObject<FloorEnv> {
  constructor(ctx: DurableObjectState, env: FloorEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS entry (seq INTEGER PRIMARY KEY, step TEXT NOT NULL, body TEXT NOT NULL)",
    );
  }

  /** Commit one entry and return its sequence number. */
  record(step: string, body: string): number {
    return this.ctx.storage.transactionSync(
      () =>
        this.ctx.storage.sql
          .exec<{ seq: number }>(
            "INSERT INTO entry (step, body) VALUES (?, ?) RETURNING seq",
            step,
            body,
          )
          .one().seq,
    );
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

/** Sequential steps per route. */
const STEPS: Record<string, number> = { one: 1, two: 2, three: 3 };

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ ok: true });
    const [, kind, run] = url.pathname.split("/");
    const steps = kind === undefined ? undefined : STEPS[kind];
    if (request.method !== "POST" || run === undefined || steps === undefined) {
      return new Response("not found", { status: 404 });
    }
    const body = await request.text();
    const ledger = env.FLOOR.getByName(run);
    const seq = [await ledger.record("before", body)];
    if (steps === 3) {
      const answer = await env.UPSTREAM.fetch("https://upstream/write", { method: "POST", body });
      seq.push(((await answer.json()) as { seq: number }).seq);
    }
    if (steps >= 2) seq.push(await ledger.record("after", body));
    return Response.json({ seq });
  },
} satisfies ExportedHandler<FloorEnv>;
