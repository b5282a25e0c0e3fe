/** One benchmark's figures, printed and written to BENCHMARKS.md. */
export interface Table {
  /** Heading. */
  title: string;
  /** What was measured and how, in a sentence or two. */
  note: string;
  /** Column names. */
  head: string[];
  /** Rows of cells. */
  rows: string[][];
}

/** A GitHub-flavoured markdown table. */
export function markdown(t: Table): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const rule = t.head.map((_, i) => (i === 0 ? "---" : "---:"));
  return [`### ${t.title}`, "", t.note, "", line(t.head), line(rule), ...t.rows.map(line), ""].join(
    "\n",
  );
}

/** The same table for a terminal, columns padded. */
export function plain(t: Table): string {
  const widths = t.head.map((h, i) =>
    Math.max(h.length, ...t.rows.map((r) => (r[i] ?? "").length)),
  );
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  return [t.title, line(t.head), ...t.rows.map(line), ""].join("\n");
}
