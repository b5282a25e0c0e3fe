import { describe, expect, it } from "vitest";
import { benchmarksDoc } from "../../scripts/bench/doc.ts";

const OLD = [
  "# Benchmarks",
  "",
  "- Date: then",
  "",
  "### End to end",
  "",
  "| route | req/s |",
  "| old | 1 |",
  "",
  "### Storage simplification",
  "",
  "Not written by the bench: kept as it is.",
  "",
  "| path | change |",
  "| noop | +1% |",
  "",
  "### Bundle and startup",
  "",
  "| build | upload |",
  "| old | 2 KiB |",
  "",
  "Measured apart from the other tables:",
  "",
].join("\n");

const INTRO = "# Benchmarks\n\n- Date: now\n";

describe("BENCHMARKS.md as a bench run writes it", () => {
  it("keeps a hand-written section and every section the run did not measure", () => {
    const doc = benchmarksDoc(OLD, INTRO, ["### End to end\n\n| route | req/s |\n| new | 2 |\n"]);
    expect(doc).toContain("### Storage simplification\n\nNot written by the bench: kept as it is.");
    expect(doc).toContain("| noop | +1% |");
    expect(doc).toContain("| old | 2 KiB |\n\nMeasured apart from the other tables:");
  });

  it("replaces the opening and each measured section in place, in the old order", () => {
    const doc = benchmarksDoc(OLD, INTRO, [
      "### Bundle and startup\n\n| build | upload |\n| new | 3 KiB |\n",
      "### End to end\n\n| route | req/s |\n| new | 2 |\n",
    ]);
    expect(doc).not.toContain("then");
    expect(doc).not.toContain("| old |");
    expect(doc.startsWith("# Benchmarks\n\n- Date: now\n\n### End to end\n\n")).toBe(true);
    const order = ["| new | 2 |", "### Storage simplification", "| new | 3 KiB |"];
    const at = order.map((text) => doc.indexOf(text));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it("adds a table the old text has no section for after the last section", () => {
    const doc = benchmarksDoc(OLD, INTRO, ["### Tracing\n\n| route | ms |\n"]);
    expect(
      doc.endsWith("Measured apart from the other tables:\n\n### Tracing\n\n| route | ms |\n"),
    ).toBe(true);
  });

  it("keeps the opening when the run gives none", () => {
    const doc = benchmarksDoc(OLD, null, ["### End to end\n\n| new |\n"]);
    expect(doc.startsWith("# Benchmarks\n\n- Date: then\n\n### End to end\n\n| new |\n")).toBe(
      true,
    );
  });

  it("writes the measured sections alone after the opening when there is no old text", () => {
    expect(benchmarksDoc("", INTRO, ["### A\n\nx\n", "### B\n\ny\n"])).toBe(
      "# Benchmarks\n\n- Date: now\n\n### A\n\nx\n\n### B\n\ny\n",
    );
  });
});
