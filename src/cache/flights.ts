/**
 * Identical reads in flight in one isolate: the first runs the tool, the rest wait for its
 * execution instead of querying the backend again.
 */
import type { Execution } from "../execute/execute.ts";

/** What joiners of a flight receive: its execution, or null when its leader never ran it. */
export type Landing = Execution | null;

/**
 * Executions of cacheable reads under way in this isolate, by cache key. Module state
 * is per isolate: other isolates and other data centres run their own flights, and
 * meet only in the tiers.
 */
const flights = new Map<string, Promise<Landing>>();

/** The flight under way for `key`, or null. */
export function flightOf(key: string): Promise<Landing> | null {
  return flights.get(key) ?? null;
}

/** The leader's handle on the flight it started. */
export interface Flight {
  /**
   * Hand the landing to every joiner. The flight stays joinable until `stored` settles,
   * so a call that arrives while the result is being written still makes no query.
   */
  land(landing: Landing, stored: Promise<unknown>): void;
}

/** Start the flight of `key`; the caller must land it, whatever happens. */
export function takeOff(key: string): Flight {
  const { promise, resolve } = Promise.withResolvers<Landing>();
  flights.set(key, promise);
  let landed = false;
  return {
    land(landing, stored) {
      if (landed) return;
      landed = true;
      resolve(landing);
      const leave = () => {
        if (flights.get(key) === promise) flights.delete(key);
      };
      // A flight that never ran is gone at once, so its joiners can start their own.
      if (landing === null) leave();
      else void stored.finally(leave);
    },
  };
}
