/**
 * CPU time of a process group from Linux's /proc: what a `wrangler dev` (its Node process and
 * its workerd) spent, user and system, so a row can say how much CPU one call costs whatever
 * else the machine is doing. Null where /proc is missing (not Linux).
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

/** CPU ms (user + system) of every live process in group `pgid`, or null without /proc. */
export function groupCpuMs(pgid: number): number | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  let ticks = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    // After the name: state, ppid, pgrp (index 2), ..., utime (11), stime (12).
    if (f === null || Number(f[2]) !== pgid) continue;
    ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / TICKS_PER_S;
}
