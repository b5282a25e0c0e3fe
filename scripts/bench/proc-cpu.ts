/**
 * CPU time of a process group from Linux's /proc: what a `wrangler dev` (its Node process and
 * its workerd) spent, user and system, so a row can say how much CPU one call costs whatever
 * else the machine is doing; and, of that, what the workerd that runs the worker and its
 * objects spent, apart from the workerd in front of it that only forwards each request. Null
 * where /proc is missing (not Linux).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Linux reports process times in USER_HZ ticks, 100 per second on every mainstream kernel. */
const TICKS_PER_S = 100;

/** The fields of /proc/PID/stat after the command name (which may hold spaces). */
function statFields(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // Gone since the listing.
  }
}

/** A live process of a group: its command line and its CPU ticks (user + system). */
interface GroupProcess {
  command: string[];
  ticks: number;
}

/** Every live process in group `pgid`, or null without /proc. */
function groupProcesses(pgid: number): GroupProcess[] | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  const out: GroupProcess[] = [];
  for (const pid of pids) {
    const f = statFields(pid);
    // After the name: state, ppid, pgrp (index 2), ..., utime (11), stime (12).
    if (f === null || Number(f[2]) !== pgid) continue;
    let command: string[] = [];
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      // Gone since the listing: its ticks still count for the group.
    }
    out.push({ command, ticks: Number(f[11]) + Number(f[12]) });
  }
  return out;
}

const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_S;

/** CPU ms (user + system) spent so far by a `wrangler dev`'s processes. */
export interface CpuReading {
  /** Every live process of its group: its Node process and its workerd. */
  group: number;
  /** The workerd that runs the worker and its Durable Objects; null if it cannot be told. */
  worker: number | null;
}

/**
 * The CPU of process group `pgid`, a `wrangler dev` serving on `port`, or null without /proc.
 * `wrangler dev` starts two workerd: one listens on `port` and forwards each request to the
 * other, which runs the code. The worker's is the one not listening on `port` (the only one, if
 * there is one).
 */
export function readCpu(pgid: number, port: number): CpuReading | null {
  const all = groupProcesses(pgid);
  if (all === null) return null;
  const workerds = all.filter((p) => /(^|\/)workerd$/.test(p.command[0] ?? ""));
  const listens = (p: GroupProcess) => p.command.some((a) => a.endsWith(`:${port}`));
  const runs = workerds.length > 1 ? workerds.filter((p) => !listens(p)) : workerds;
  const [worker] = runs;
  return {
    group: ms(all.reduce((t, p) => t + p.ticks, 0)),
    worker: runs.length === 1 && worker !== undefined ? ms(worker.ticks) : null,
  };
}
