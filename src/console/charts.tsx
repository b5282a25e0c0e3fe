/**
 * The console's charts, drawn on the server as SVG: counts over time stacked by series, a
 * counter's burn against its limit, and a ranking. Each is a pure function of its numbers,
 * coloured by class (the CSP forbids inline styles; style.ts colours `.d-*` classes), and
 * each carries the same numbers as a table, so a screen reader or a copy reads them exactly.
 */
import type { Child } from "hono/jsx";
import { utcTime } from "./layout.tsx";

/** Time cut into equal bins: `count` bins of `width` ms from `start` (ms since the epoch). */
export interface Bins {
  /** Start of the first bin, a multiple of `width`. */
  start: number;
  /** Length of each bin, in ms. */
  width: number;
  /** How many bins. */
  count: number;
}

/** Bin widths a chart picks from: round spans people read at a glance. */
const WIDTHS_MS = [
  1_000, 5_000, 15_000, 60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000,
];

/** Most bins over a span: more would be bars thinner than a few pixels. */
export const MAX_BINS = 24;

/** The narrowest round bins that cover `from`..`to` (ms) in at most `MAX_BINS`. */
export function binsOver(from: number, to: number): Bins {
  const last = Math.max(from, to);
  for (const width of WIDTHS_MS) {
    const count = Math.floor(last / width) - Math.floor(from / width) + 1;
    if (count <= MAX_BINS) return { start: Math.floor(from / width) * width, width, count };
  }
  const width = WIDTHS_MS.at(-1) ?? 1;
  const count = Math.min(MAX_BINS, Math.floor(last / width) - Math.floor(from / width) + 1);
  return { start: Math.floor(from / width) * width, width, count };
}

/** Which bin `at` falls in, or -1 outside them. */
export function binOf(bins: Bins, at: number): number {
  const i = Math.floor((at - bins.start) / bins.width);
  return i >= 0 && i < bins.count ? i : -1;
}

/** Counts per bin, split by series. */
export interface Stacked {
  /** The bins the counts are over. */
  bins: Bins;
  /** The series, bottom of each stack first. */
  series: string[];
  /** `counts[bin][series]`. */
  counts: number[][];
}

/**
 * `points` counted per bin and per key; the series are `order`'s keys that occur, then any
 * other key in name order. A point outside the bins is not counted.
 */
export function stackBy(
  points: readonly { at: number; key: string }[],
  bins: Bins,
  order: readonly string[] = [],
): Stacked {
  const inside = points.filter((p) => binOf(bins, p.at) >= 0);
  const keys = new Set(inside.map((p) => p.key));
  const rest = [...keys].filter((k) => !order.includes(k)).sort();
  const series = [...order.filter((k) => keys.has(k)), ...rest];
  const counts = Array.from({ length: bins.count }, () => series.map(() => 0));
  for (const p of inside) {
    const row = counts[binOf(bins, p.at)];
    const s = series.indexOf(p.key);
    if (row !== undefined) row[s] = (row[s] ?? 0) + 1;
  }
  return { bins, series, counts };
}

/** The drawing area of a chart, in SVG user units. */
const VIEW = { width: 600, height: 150, left: 36, right: 8, top: 8, bottom: 20 };
const PLOT = {
  width: VIEW.width - VIEW.left - VIEW.right,
  height: VIEW.height - VIEW.top - VIEW.bottom,
};

/** The widest bar, in user units: a few bins do not make slabs. */
const MAX_BAR_WIDTH = 48;

/** One drawn segment of a stacked bar. */
export interface Bar {
  /** Its bin. */
  bin: number;
  /** Its series. */
  series: string;
  /** How many it stands for. */
  count: number;
  /** Left edge, in user units. */
  x: number;
  /** Top edge, in user units (SVG's y grows downwards). */
  y: number;
  /** Its width. */
  width: number;
  /** Its height: `count` over the tallest stack's total, times the plot's height. */
  height: number;
}

/** The segments of `data`'s stacks, scaled so the tallest stack fills the plot. */
export function stackedBars(data: Stacked): { bars: Bar[]; max: number } {
  const totals = data.counts.map((row) => row.reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const step = PLOT.width / data.bins.count;
  const width = Math.max(1, Math.min(step * 0.8, MAX_BAR_WIDTH));
  const bars: Bar[] = [];
  data.counts.forEach((row, bin) => {
    let base = VIEW.top + PLOT.height;
    row.forEach((count, s) => {
      if (count === 0) return;
      const height = (count / max) * PLOT.height;
      base -= height;
      const x = VIEW.left + bin * step + (step - width) / 2;
      bars.push({ bin, series: data.series[s] ?? "", count, x, y: base, width, height });
    });
  });
  return { bars, max };
}

/** A counter's value at the end of each bin, against its limit. */
export interface Burn {
  /** The bins. */
  bins: Bins;
  /** Used at the end of each bin: the last point in it, else the bin before's. */
  used: number[];
  /** The limit. */
  limit: number;
}

/** The counter's burn over `bins` from its readings `points` (any order). */
export function burnOver(
  points: readonly { at: number; used: number }[],
  bins: Bins,
  limit: number,
): Burn {
  const last: (number | undefined)[] = Array.from({ length: bins.count }, () => undefined);
  const lastAt: number[] = Array.from({ length: bins.count }, () => -Infinity);
  for (const p of points) {
    const i = binOf(bins, p.at);
    if (i >= 0 && p.at >= (lastAt[i] ?? -Infinity)) {
      last[i] = p.used;
      lastAt[i] = p.at;
    }
  }
  let carried = 0;
  const used = last.map((u) => {
    carried = u ?? carried;
    return carried;
  });
  return { bins, used, limit };
}

/** The burn as a step line's points and the limit's height, scaled to the larger of the two. */
export function burnLine(burn: Burn): { points: string; limitY: number; max: number } {
  const max = Math.max(1, burn.limit, ...burn.used);
  const step = PLOT.width / burn.bins.count;
  const y = (n: number) => round(VIEW.top + PLOT.height - (n / max) * PLOT.height);
  const points = burn.used
    .flatMap((u, i) => [
      `${round(VIEW.left + i * step)},${y(u)}`,
      `${round(VIEW.left + (i + 1) * step)},${y(u)}`,
    ])
    .join(" ");
  return { points, limitY: y(burn.limit), max };
}

/** `keys` counted, most frequent first (ties by name), the first `n`. */
export function topCounts(keys: readonly string[], n: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).slice(0, n);
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/** A bin's start as a short axis label: seconds only where bins are shorter than a minute. */
function tick(bins: Bins, i: number): string {
  const iso = new Date(bins.start + i * bins.width).toISOString();
  if (bins.width >= 86_400_000) return iso.slice(0, 10);
  return bins.width < 60_000 ? iso.slice(11, 19) : iso.slice(11, 16);
}

function binStart(bins: Bins, i: number): string {
  return utcTime(new Date(bins.start + i * bins.width).toISOString());
}

/** The axes every time chart shares: the baseline, the top value, the first and last bin. */
function TimeAxes(props: { bins: Bins; max: number }) {
  const base = VIEW.top + PLOT.height;
  return (
    <g class="axis">
      <line x1={VIEW.left} y1={base} x2={VIEW.width - VIEW.right} y2={base} />
      <text x={VIEW.left - 4} y={VIEW.top + 8} text-anchor="end">
        {props.max}
      </text>
      <text x={VIEW.left - 4} y={base} text-anchor="end">
        0
      </text>
      <text x={VIEW.left} y={VIEW.height - 4}>
        {tick(props.bins, 0)}
      </text>
      {props.bins.count === 1 ? null : (
        <text x={VIEW.width - VIEW.right} y={VIEW.height - 4} text-anchor="end">
          {tick(props.bins, props.bins.count - 1)}
        </text>
      )}
    </g>
  );
}

/** A chart's frame: its title, the picture, and the same numbers as a table. */
function Figure(props: { id: string; title: string; svg: Child; table: Child; legend?: Child }) {
  return (
    <figure class="chart" id={props.id}>
      <figcaption>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${VIEW.width} ${VIEW.height}`}
        role="img"
        aria-label={`${props.title}; the numbers are in the table below`}
      >
        {props.svg}
      </svg>
      {props.legend}
      <details class="numbers">
        <summary>The numbers</summary>
        <div class="scroll">{props.table}</div>
      </details>
    </figure>
  );
}

/** How a stacked chart names and colours its series. */
export interface SeriesLook {
  /** The series' name in the legend and the table. */
  label: (series: string) => string;
  /** The class that colours it (style.ts). */
  cls: (series: string) => string;
}

/** Counts over time, stacked by series; the table lists the bins that have any. */
export function StackedChart(props: {
  id: string;
  title: string;
  data: Stacked;
  look: SeriesLook;
}) {
  const { data, look } = props;
  const { bars, max } = stackedBars(data);
  const rows = data.counts.map((row, i) => ({ i, row })).filter(({ row }) => row.some((n) => n));
  const svg = (
    <>
      <TimeAxes bins={data.bins} max={max} />
      {bars.map((b) => (
        <rect
          class={`bar ${look.cls(b.series)}`}
          x={round(b.x)}
          y={round(b.y)}
          width={round(b.width)}
          height={round(b.height)}
        >
          <title>{`${tick(data.bins, b.bin)} ${look.label(b.series)}: ${b.count}`}</title>
        </rect>
      ))}
    </>
  );
  const legend = (
    <ul class="legend">
      {data.series.map((s) => (
        <li class={`badge ${look.cls(s)}`}>{look.label(s)}</li>
      ))}
    </ul>
  );
  const table = (
    <table>
      <caption class="muted">Bins of {binWords(data.bins.width)}; bins with none left out.</caption>
      <thead>
        <tr>
          <th>From</th>
          {data.series.map((s) => (
            <th>{look.label(s)}</th>
          ))}
          <th>Total</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ i, row }) => (
          <tr>
            <td class="num">{binStart(data.bins, i)}</td>
            {row.map((n) => (
              <td class="num">{n}</td>
            ))}
            <td class="num">{row.reduce((a, b) => a + b, 0)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return <Figure id={props.id} title={props.title} svg={svg} table={table} legend={legend} />;
}

/** A counter's use over time as a step line, with its limit as a dashed line. */
export function BurnChart(props: { id: string; title: string; burn: Burn }) {
  const { burn } = props;
  const { points, limitY, max } = burnLine(burn);
  const svg = (
    <>
      <TimeAxes bins={burn.bins} max={max} />
      <line class="limit" x1={VIEW.left} y1={limitY} x2={VIEW.width - VIEW.right} y2={limitY} />
      <text
        class="limit-label"
        x={VIEW.width - VIEW.right}
        y={limitY < VIEW.top + 12 ? limitY + 12 : limitY - 3}
        text-anchor="end"
      >
        {`limit ${burn.limit}`}
      </text>
      <polyline class="burn" points={points} />
    </>
  );
  const table = (
    <table>
      <caption class="muted">Used at the end of each bin of {binWords(burn.bins.width)}.</caption>
      <thead>
        <tr>
          <th>From</th>
          <th>Used</th>
          <th>Limit</th>
        </tr>
      </thead>
      <tbody>
        {burn.used.map((u, i) => (
          <tr>
            <td class="num">{binStart(burn.bins, i)}</td>
            <td class="num">{u}</td>
            <td class="num">{burn.limit}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return <Figure id={props.id} title={props.title} svg={svg} table={table} />;
}

/** Named counts as horizontal bars, largest first, each labelled with its name and count. */
export function RankChart(props: {
  id: string;
  title: string;
  rows: [string, number][];
  cls: string;
  heading: [string, string];
}) {
  const max = Math.max(1, ...props.rows.map(([, n]) => n));
  const row = PLOT.height / Math.max(props.rows.length, 1);
  const svg = props.rows.map(([name, n], i) => (
    <>
      <rect
        class={`bar ${props.cls}`}
        x={VIEW.left}
        y={round(VIEW.top + i * row + row * 0.1)}
        width={round((n / max) * PLOT.width * 0.7)}
        height={round(row * 0.8)}
      />
      <text
        x={round(VIEW.left + (n / max) * PLOT.width * 0.7 + 4)}
        y={round(VIEW.top + (i + 0.65) * row)}
      >
        {`${name} ${n}`}
      </text>
    </>
  ));
  const table = (
    <table>
      <thead>
        <tr>
          <th>{props.heading[0]}</th>
          <th>{props.heading[1]}</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map(([name, n]) => (
          <tr>
            <td>
              <code>{name}</code>
            </td>
            <td class="num">{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return <Figure id={props.id} title={props.title} svg={svg} table={table} />;
}

/** A bin width in words: `1 second`, `15 minutes`, `1 hour`. */
function binWords(ms: number): string {
  const units: [number, string][] = [
    [604_800_000, "week"],
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1_000, "second"],
  ];
  for (const [size, unit] of units) {
    if (ms % size === 0) {
      const n = ms / size;
      return n === 1 ? `1 ${unit}` : `${n} ${unit}s`;
    }
  }
  return `${ms} ms`;
}
