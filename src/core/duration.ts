/**
 * Durations as people type and read them: `90s`, `15m`, `1h`, `1h30m`, `2d`. The console's
 * forms and an approval rule's `deadline` take them and turn them into milliseconds; a text
 * that is not one is an error, never a guess.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;

/** One or more `<number><unit>` groups, largest unit first, each unit at most once. */
const DURATION = /^(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,6})m)?(?:(\d{1,9})s)?$/;

/** `text` as milliseconds, or null when it is not a duration (`15m`, `1h`, `90s`, `1h30m`). */
export function parseDuration(text: string): number | null {
  const found = DURATION.exec(text.trim().toLowerCase().replaceAll(" ", ""));
  if (found === null || found.slice(1).every((g) => g === undefined)) return null;
  const [, d, h, m, s] = found;
  const ms =
    Number(d ?? 0) * UNIT_MS.d +
    Number(h ?? 0) * UNIT_MS.h +
    Number(m ?? 0) * UNIT_MS.m +
    Number(s ?? 0) * UNIT_MS.s;
  return Number.isSafeInteger(ms) ? ms : null;
}

/** Milliseconds as the shortest exact duration text: `1h`, `15m`, `1h30m`, `90s` as `1m30s`. */
export function formatDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms / 1000}s`;
  let left = ms;
  let text = "";
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const n = Math.floor(left / size);
    if (n > 0) text += `${n}${unit}`;
    left -= n * size;
  }
  return text === "" ? "0s" : text;
}
