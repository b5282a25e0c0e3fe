/**
 * The demo log backend: deterministic synthetic log lines with a real backend's latency.
 */
const LEVELS = ["INFO", "INFO", "INFO", "WARN", "ERROR"] as const;
const EVENTS = [
  "request served in {n} ms",
  "upstream timeout after {n} ms",
  "retry {n} triggered",
  "connection pool at {p}% capacity",
  "cache miss ratio {p}%",
  "health check ok ({n} ms)",
] as const;

/** A small deterministic PRNG (mulberry32), so the same query always gets the same logs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Synthetic log lines of a service over a window, the same for the same query. */
export function syntheticLogs(service: string, window: string): string[] {
  const next = prng(seedOf(`${service}|${window}`));
  const count = 5 + Math.floor(next() * 6);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const level = LEVELS[Math.floor(next() * LEVELS.length)] ?? "INFO";
    const event = EVENTS[Math.floor(next() * EVENTS.length)] ?? EVENTS[0];
    const n = String(1 + Math.floor(next() * 999));
    const p = String(Math.floor(next() * 100));
    const text = event.replace("{n}", n).replace("{p}", p);
    lines.push(`[${level}] ${service}: ${text} (window ${window})`);
  }
  return lines;
}

/** Parse `"300-800"` into a latency range in ms; anything else means no delay. */
export function latencyRange(spec: string | undefined): [number, number] {
  const m = /^(\d+)-(\d+)$/.exec(spec ?? "");
  if (m === null) return [0, 0];
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return lo <= hi ? [lo, hi] : [hi, lo];
}
