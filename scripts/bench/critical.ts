/**
 * The critical path: the `noop` and both mutations against their floors over one connection.
 * Under the end-to-end table's 8 connections the worker's thread is the bottleneck, so req/s
 * follows CPU, and a step run beside another (a `create_ticket`'s claim beside its `propose`)
 * costs throughput like a serial one. One request at a time, a call's time is the steps its
 * answer waits for, one after another. A step beside another costs no time only where the two
 * run on different threads: `wrangler dev` runs the worker and all its objects on one, so
 * there they still take turns (docs/proof.md).
 */
import { type CriticalFigures, criticalRows, median, ratioCell, type Servers } from "./http.ts";
import type { Table } from "./table.ts";

/** Milliseconds per call over one connection: the inverse of its req/s. */
function msPerCall(rps: number[]): string {
  return (1000 / median(rps)).toFixed(2);
}

function row(f: CriticalFigures): string[] {
  return [f.name, msPerCall(f.rps), f.floor, msPerCall(f.floorRps), ratioCell(f.rps, f.floorRps)];
}

export async function benchCritical(servers: Servers, quick: boolean): Promise<Table> {
  const duration = quick ? 1 : 4;
  const figures = await criticalRows(servers, duration);
  return {
    title: "One connection: what each call waits for, against the floor",
    note:
      `autocannon, 1 connection, loopback, 5 rounds of ${duration} s per row, each fence row right ` +
      "after its own run of its floor, in reverse order every other round. ms per call: 1000 over " +
      "the median round's req/s, the mean time of a call from request to answer. vs floor: the " +
      "fence's req/s over its floor's, the median of the rounds' ratios (each round's in brackets), " +
      "as in the end-to-end table. `create_ticket` asks its target's claim object and its run at " +
      "the same time; the ticket floor has no claim. `wrangler dev` runs the worker and all its " +
      "objects on one thread, so steps asked at the same time still take turns on it. The targets " +
      "are the end-to-end table's.",
    head: ["route", "ms per call", "floor", "floor ms per call", "vs floor"],
    rows: figures.map(row),
  };
}
