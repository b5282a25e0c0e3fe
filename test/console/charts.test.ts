import { describe, expect, it } from "vitest";
import {
  binOf,
  binsOver,
  burnLine,
  burnOver,
  MAX_BINS,
  stackBy,
  stackedBars,
  topCounts,
} from "../../src/console/charts.tsx";

const T0 = Date.parse("2026-03-01T10:00:00Z");
const MIN = 60_000;

describe("charts turn numbers into bars", () => {
  it("cuts a span into the narrowest round bins that fit", () => {
    expect(binsOver(T0, T0 + 10_000)).toEqual({ start: T0, width: 1_000, count: 11 });
    expect(binsOver(T0 + 30_000, T0 + 20 * MIN)).toEqual({ start: T0, width: MIN, count: 21 });
    const day = binsOver(T0, T0 + 23 * 3_600_000);
    expect(day.width).toBe(3_600_000);
    expect(day.count).toBeLessThanOrEqual(MAX_BINS);
    expect(binOf(day, T0 - 1)).toBe(-1);
    expect(binOf(day, T0 + 90 * MIN)).toBe(1);
  });

  it("stacks counts per bin by series, in the given order first", () => {
    const bins = { start: T0, width: MIN, count: 3 };
    const points = [
      { at: T0 + 1, key: "block" },
      { at: T0 + 2, key: "applied" },
      { at: T0 + 3, key: "applied" },
      { at: T0 + 2 * MIN, key: "cached" },
      { at: T0 + 5 * MIN, key: "applied" },
    ];
    const data = stackBy(points, bins, ["applied", "block"]);
    expect(data.series).toEqual(["applied", "block", "cached"]);
    expect(data.counts).toEqual([
      [2, 1, 0],
      [0, 0, 0],
      [0, 0, 1],
    ]);
  });

  it("scales each bar to the tallest stack, stacking upwards from the baseline", () => {
    const bins = { start: T0, width: MIN, count: 2 };
    const data = stackBy(
      [
        { at: T0, key: "applied" },
        { at: T0, key: "applied" },
        { at: T0, key: "applied" },
        { at: T0, key: "block" },
        { at: T0 + MIN, key: "applied" },
      ],
      bins,
      ["applied", "block"],
    );
    const { bars, max } = stackedBars(data);
    expect(max).toBe(4);
    const [applied, block, later] = bars;
    expect(bars).toHaveLength(3);
    expect(applied).toMatchObject({ bin: 0, series: "applied", count: 3 });
    expect(block).toMatchObject({ bin: 0, series: "block", count: 1 });
    expect(later).toMatchObject({ bin: 1, series: "applied", count: 1 });
    const unit = (block?.height ?? 0) / 1;
    expect(applied?.height).toBeCloseTo(unit * 3);
    expect(later?.height).toBeCloseTo(unit);
    // The block segment sits on top of the applied one, and both stacks share the baseline.
    expect(block?.y ?? 0).toBeCloseTo((applied?.y ?? 0) - unit);
    expect((applied?.y ?? 0) + (applied?.height ?? 0)).toBeCloseTo(
      (later?.y ?? 0) + (later?.height ?? 0),
    );
    expect(later?.x).toBeGreaterThan(applied?.x ?? 0);
  });

  it("carries a counter's last reading forward through bins without one", () => {
    const bins = { start: T0, width: MIN, count: 4 };
    const burn = burnOver(
      [
        { at: T0 + 2 * MIN + 5, used: 3 },
        { at: T0 + 10, used: 1 },
        { at: T0 + 20, used: 2 },
      ],
      bins,
      5,
    );
    expect(burn.used).toEqual([2, 2, 3, 3]);
    const line = burnLine(burn);
    expect(line.max).toBe(5);
    const ys = line.points.split(" ").map((p) => Number(p.split(",")[1]));
    // The limit is the top of the plot; 2 of 5 used sits lower (SVG's y grows downwards).
    expect(ys[0]).toBeGreaterThan(line.limitY);
    expect(ys[4]).toBeLessThan(ys[0] ?? 0);
  });

  it("scales a burn past its limit to the larger value", () => {
    const burn = burnOver([{ at: T0, used: 8 }], { start: T0, width: MIN, count: 1 }, 4);
    const line = burnLine(burn);
    expect(line.max).toBe(8);
    const y = Number(line.points.split(" ")[0]?.split(",")[1]);
    expect(y).toBeLessThan(line.limitY);
  });

  it("ranks counts most frequent first, ties by name, the first n", () => {
    const keys = ["b", "a", "c", "a", "b", "d", "a"];
    expect(topCounts(keys, 3)).toEqual([
      ["a", 3],
      ["b", 2],
      ["c", 1],
    ]);
  });
});
