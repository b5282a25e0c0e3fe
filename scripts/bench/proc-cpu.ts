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

/** CPU ms (user + system) of every live process in group `pgid`, or null without /proc. */
export function groupCpuMs(pgid: number): number | null {
  const all = groupProcesses(pgid);
  return all === null ? null : ms(all.reduce((t, p) => t + p.ticks, 0));
}

/**
 * CPU ms of the workerd in group `pgid` that runs the worker and its Durable Objects, or null.
 * `wrangler dev` starts two: one listens on the dev server's `port` and forwards each request
 * to the other, which runs the code. The one not listening on `port` is counted (the only one,
 * if there is one).
 */
export function workerCpuMs(pgid: number, port: number): number | null {
  const all = groupProcesses(pgid);
  if (all === null) return null;
  const workerds = all.filter((p) => /(^|\/)workerd$/.test(p.command[0] ?? ""));
  const listens = (p: GroupProcess) => p.command.some((a) => a.endsWith(`:${port}`));
  const runs = workerds.length > 1 ? workerds.filter((p) => !listens(p)) : workerds;
  return runs.length === 1 ? ms(runs[0]?.ticks ?? 0) : null;
}
