/**
 * BENCHMARKS.md as the bench writes it: the bench owns the text before the first section (the
 * title and the machine) and the section of each table it measured; every other section, a
 * hand-written one or a table measured apart that this run did not measure, stays as it is.
 */

/** A section's heading level: `### <title>`, one per table (table.ts). */
const HEADING = /^### (.*)$/gm;

/** `doc` cut at its section headings: the text before the first, then each section. */
function sections(doc: string): { head: string; parts: Array<{ title: string; text: string }> } {
  const starts = [...doc.matchAll(HEADING)].map((m) => ({ title: m[1] ?? "", at: m.index }));
  const parts = starts.map((s, i) => ({
    title: s.title,
    text: doc.slice(s.at, starts[i + 1]?.at ?? doc.length),
  }));
  return { head: doc.slice(0, starts[0]?.at ?? doc.length), parts };
}

/** A section's text ending in one blank line, so sections stay apart wherever they land. */
function block(text: string): string {
  return `${text.trimEnd()}\n\n`;
}

/** Whether `doc` has a section titled `title`. */
export function hasSection(doc: string, title: string): boolean {
  return sections(doc).parts.some((part) => part.title === title);
}

/**
 * The new BENCHMARKS.md: `old` (empty when there is none) with its opening replaced by `intro`
 * (kept when null) and each of `measured` (a section's markdown, starting with its `### `
 * heading) put in place of the section of the same title, or after the last section when the
 * old text has none.
 */
export function benchmarksDoc(
  old: string,
  intro: string | null,
  measured: readonly string[],
): string {
  const fresh = new Map(measured.map((text) => [sections(text).parts[0]?.title ?? "", text]));
  const kept = sections(old).parts.map(({ title, text }) => {
    const replaced = fresh.get(title);
    fresh.delete(title);
    return block(replaced ?? text);
  });
  const added = [...fresh.values()].map(block);
  const opening = intro ?? sections(old).head;
  return `${[block(opening), ...kept, ...added].join("").trimEnd()}\n`;
}
