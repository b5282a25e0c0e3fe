import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** The pages a reader follows: README, ARCHITECTURE and every page of docs/. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`);
  return ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md", ...docs].filter((p) =>
    existsSync(join(ROOT, p)),
  );
}

/** GitHub's anchor of a heading: lowercased, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/**
 * A page's text without its fenced code blocks. Per CommonMark, a fence opens with three or
 * more backticks and closes only on a line of at least as many backticks and nothing else.
 */
function prose(path: string): string {
  let open = 0;
  return readFileSync(join(ROOT, path), "utf8")
    .split("\n")
    .filter((line) => {
      const ticks = /^\s*(`{3,})(.*)$/.exec(line);
      if (open === 0 && ticks !== null) open = ticks[1]?.length ?? 3;
      else if (
        open > 0 &&
        ticks !== null &&
        (ticks[1]?.length ?? 0) >= open &&
        ticks[2]?.trim() === ""
      )
        open = 0;
      else return open === 0;
      return false;
    })
    .join("\n");
}

function anchorsOf(path: string): Set<string> {
  const text = prose(path);
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1] ?? "")));
}

/** Every relative link of a page that does not resolve, as `page: target`. */
function brokenLinks(page: string): string[] {
  const text = prose(page);
  const broken: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1] ?? "";
    if (/^[a-z]+:/i.test(target)) continue;
    const [file = "", anchor] = target.split("#");
    const path = file === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), file);
    if (!existsSync(path)) broken.push(`${page}: ${target}`);
    else if (anchor !== undefined && path.endsWith(".md")) {
      const rel = path.slice(ROOT.length + 1);
      if (!anchorsOf(rel).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  return broken;
}

describe("links in README and docs/", () => {
  it("every relative link and anchor resolves", () => {
    expect(pages().flatMap(brokenLinks)).toEqual([]);
  });

  it("anchors follow GitHub's rule", () => {
    expect(slug("Escalate, and the same read twice")).toBe("escalate-and-the-same-read-twice");
    expect(slug("`policy check`")).toBe("policy-check");
  });
});
