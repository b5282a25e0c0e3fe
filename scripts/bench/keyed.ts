/**
 * The mutations against floors that keep an idempotency key. The end-to-end table's mutation
 * floors record a call before and after its upstream and keep no key, which the fence must: a
 * retry of a mutation may never reach the upstream twice. The least that keeps one is the
 * key taken in the first step's transaction and the upstream's answer stored under it in the
 * second's (scripts/bench/floor/worker.ts, `begin` and `finish`). This table runs each mutation
 * after its end-to-end floor and right beside that floor keeping a key, to tell what the key
 * costs any design that keeps it from what the fence spends beyond that.
 */
import {
  type KeyedFigures,
  keyedRows,
  median,
  pairedRatio,
  ratioCell,
  type Servers,
} from "./http.ts";
import type { Table } from "./table.ts";

function row(f: KeyedFigures): string[] {
  return [
    f.name,
    Math.round(median(f.fence.rps)).toString(),
    Math.round(median(f.keyedFloor.rps)).toString(),
    ratioCell(f.fence.rps, f.keyedFloor.rps),
    `${pairedRatio(f.fence.workerCpu, f.keyedFloor.workerCpu).toFixed(2)}x`,
    Math.round(median(f.floor.rps)).toString(),
    ratioCell(f.keyedFloor.rps, f.floor.rps),
  ];
}

export async function benchKeyed(servers: Servers, quick: boolean): Promise<Table> {
  const duration = quick ? 2 : 4;
  const figures = await keyedRows(servers, duration);
  return {
    title: "Mutations against floors that keep an idempotency key",
    note:
      `autocannon, 8 connections, loopback, 5 rounds of ${duration} s per row, in reverse order ` +
      "every other round: each mutation's end-to-end floor, then that floor keeping an " +
      "idempotency key, then the fence row. The keyed floor takes the request's key in its " +
      "first step's transaction (one insert into a table of keys, the entry's insert beside it) " +
      "and stores the tickets service's answer under the key in its second's (the entry's " +
      "insert and one update): four statements where the floor makes two, and a retry answered " +
      "from the key without reaching the upstream. Ratios: the median of the rounds' ratios of " +
      "req/s, each round's in brackets; CPU: the worker's workerd CPU per call over the keyed " +
      "floor's, the median round's ratio. The targets stay the end-to-end table's, against the " +
      "floors without a key.",
    head: [
      "route",
      "req/s",
      "keyed floor req/s",
      "vs keyed floor",
      "CPU vs keyed floor (worker)",
      "floor req/s",
      "keyed floor vs floor",
    ],
    rows: figures.map(row),
  };
}
