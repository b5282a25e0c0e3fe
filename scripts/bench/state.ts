/**
 * Where wrangler keeps local state: on disk (fsync reaches a real device) against tmpfs
 * (`/dev/shm`, memory). The same rows run against a fence and a floor worker on each, so a
 * reader can tell the local fsync cost from the design's: what the two share is the platform.
 */
import { existsSync } from "node:fs";
import { ROUNDS, type Row, stateRows } from "./http.ts";
import { withFenceAndFloor } from "./servers.ts";
import type { Table } from "./table.ts";

/** The on-disk state folder of the bench: inside the checkout, which is on disk. */
export const DISK_STATE = ".wrangler/bench-state";
const TMPFS = "/dev/shm";

function onStorage(root: string, duration: number): Promise<Map<string, number>> {
  return withFenceAndFloor(root, (fence, floor) =>
    stateRows({ fence: fence.url, floor: floor.url }, duration),
  );
}

export async function benchState(quick: boolean): Promise<Table | null> {
  if (!existsSync(TMPFS)) return null;
  const duration = quick ? 2 : 4;
  const disk = await onStorage(DISK_STATE, duration);
  const tmpfs = await onStorage(TMPFS, duration);
  const rows: Row[] = [...disk].map(([name, rps]) => {
    const fast = tmpfs.get(name) ?? 0;
    return [
      name,
      Math.round(rps).toString(),
      Math.round(fast).toString(),
      `${(fast / rps).toFixed(2)}x`,
    ];
  });
  return {
    title: "Local state on disk against tmpfs",
    note:
      `The same rows (autocannon, 8 connections, ${ROUNDS} rounds of ${duration} s, interleaved, the median round) against a fence and a ` +
      `floor worker whose \`--persist-to\` is on disk (${DISK_STATE}) and then on tmpfs (${TMPFS}). ` +
      "What tmpfs gains is local fsync cost, which a deployed object does not pay the same way; " +
      "the ratio of the fence to the floor on the same storage is the design's cost.",
    head: ["route", "disk req/s", "tmpfs req/s", "tmpfs/disk"],
    rows,
  };
}
