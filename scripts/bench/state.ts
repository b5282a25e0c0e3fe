/**
 * What the local platform adds, told apart from the design's cost: where wrangler keeps local
 * state, on disk (fsync reaches a real device) against tmpfs (`/dev/shm`, memory), and whether
 * `wrangler dev` records a trace of every invocation (its default) or not. The same rows run
 * against a fence and a floor worker in each setting: what the two share is the platform, and
 * the ratio of the fence to the floor in one setting is the design's cost there.
 */
import { existsSync } from "node:fs";
import { median, pairedRatio, ROUNDS, type Row, type StateFigures, stateRows } from "./http.ts";
import { withFenceAndFloor } from "./servers.ts";
import type { Table } from "./table.ts";

/** The on-disk state folder of the bench: inside the checkout, which is on disk. */
export const DISK_STATE = ".wrangler/bench-state";
const TMPFS = "/dev/shm";

type Setting = Map<string, StateFigures>;

function measured(root: string, duration: number, traced: boolean): Promise<Setting> {
  return withFenceAndFloor(
    root,
    (fence, floor) => {
      const groups = { fence: fence.group, floor: floor.group };
      return stateRows({ fence: fence.url, floor: floor.url, groups }, duration);
    },
    traced,
  );
}

/** The median round of row `name`'s req/s in one setting. */
const rps = (setting: Setting, name: string) => median(setting.get(name)?.rps ?? [Number.NaN]);
const cpu = (setting: Setting, name: string) =>
  median(setting.get(name)?.workerCpu ?? [Number.NaN]).toFixed(2);

/** A fence row's req/s over its floor's in one setting, round by round ("" for a floor row). */
function vsFloor(setting: Setting, name: string): string {
  const row = setting.get(name);
  const floor = row?.floor ? setting.get(row.floor) : undefined;
  if (row === undefined || floor === undefined) return "";
  return `${pairedRatio(row.rps, floor.rps).toFixed(2)}x`;
}

export async function benchState(quick: boolean): Promise<Table[]> {
  if (!existsSync(TMPFS)) return [];
  const duration = quick ? 2 : 4;
  const disk = await measured(DISK_STATE, duration, true);
  const tmpfs = await measured(TMPFS, duration, true);
  const untraced = await measured(DISK_STATE, duration, false);
  const stateRowsOf = (name: string): Row => [
    name,
    Math.round(rps(disk, name)).toString(),
    Math.round(rps(tmpfs, name)).toString(),
    `${(rps(tmpfs, name) / rps(disk, name)).toFixed(2)}x`,
    vsFloor(disk, name),
    vsFloor(tmpfs, name),
  ];
  const tracingRowsOf = (name: string): Row => [
    name,
    Math.round(rps(disk, name)).toString(),
    Math.round(rps(untraced, name)).toString(),
    cpu(disk, name),
    cpu(untraced, name),
    vsFloor(disk, name),
    vsFloor(untraced, name),
  ];
  const names = [...disk.keys()];
  const rounds = `${ROUNDS} rounds of ${duration} s, interleaved, the median round`;
  return [
    {
      title: "Local state on disk against tmpfs",
      note:
        `The same rows (autocannon, 8 connections, ${rounds}) against a fence and a floor ` +
        `worker whose \`--persist-to\` is on disk (${DISK_STATE}) and then on tmpfs (${TMPFS}). ` +
        "What tmpfs gains is local fsync cost, which a deployed object does not pay the same way; " +
        "the ratio of the fence to the floor on the same storage (vs floor: the median round of " +
        "the row over its floor's row in the same round) is the design's cost.",
      head: [
        "route",
        "disk req/s",
        "tmpfs req/s",
        "tmpfs/disk",
        "vs floor, disk",
        "vs floor, tmpfs",
      ],
      rows: names.map(stateRowsOf),
    },
    {
      title: "wrangler dev's local tracing, on and off",
      note:
        "`wrangler dev` records a trace of every invocation by default, into a collector it runs " +
        "in the same workerd as the worker and its objects; `X_LOCAL_OBSERVABILITY=false` turns " +
        "it off, and a deployed worker has no such collector beside it. The same rows " +
        `(${rounds}) against a fence and a floor worker with it on (the disk run above, as ` +
        "`npm run dev` and every other table of this file) and then off, state on disk. CPU: ms " +
        "per call of the workerd that runs the worker and its objects. What turning it off saves " +
        "a row and its floor is the collector's, not the design's; vs floor is the row's req/s " +
        "over its floor's in the same setting.",
      head: [
        "route",
        "traced req/s",
        "untraced req/s",
        "traced CPU ms/call",
        "untraced CPU ms/call",
        "vs floor, traced",
        "vs floor, untraced",
      ],
      rows: names.map(tracingRowsOf),
    },
  ];
}
