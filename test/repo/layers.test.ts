import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layers of `src/` (ARCHITECTURE.md): a module may import its own folder, any lower
 * layer, and only *types* from another folder of its own layer. Nothing imports upward.
 */
const LAYERS: Record<string, number> = {
  "src/core": 0,
  "src/fence.ts": 1,
  "src/telemetry": 1,
  "src/ledger": 2,
  "src/cache": 2,
  "src/execute": 2,
  "src/connections": 3,
  "src/http": 4,
  "src/mcp": 5,
  "src/console": 5,
  "src/oauth": 6,
  "src/app.ts": 7,
  "src/worker.ts": 8,
  "src/index.ts": 9,
};

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * Past this many lines a module of src/ or client/ has almost surely grown a second idea. Below
 * it, size follows seams: a cohesive module of 450 lines beats three fragments threaded
 * through closures.
 */
const MAX_LINES = 600;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The layer unit of a repository path: its `src/` folder, or the file itself. */
function unitOf(path: string): string | null {
  return Object.keys(LAYERS).find((u) => path === u || path.startsWith(`${u}/`)) ?? null;
}

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every relative or platform import of a file (static `import … from` and `export … from`). */
function importsOf(path: string): Edge[] {
  const text = readFileSync(join(ROOT, path), "utf8");
  const edges: Edge[] = [];
  for (const m of text.matchAll(/^(import|export)(\s+type)?\b[^;]*?from\s+"([^"]+)"/gms)) {
    const spec = m[3] ?? "";
    const to = spec.startsWith(".")
      ? relative(ROOT, resolve(dirname(join(ROOT, path)), spec))
      : spec;
    edges.push({ from: path, to, typeOnly: m[2] !== undefined });
  }
  return edges;
}

function violations(): string[] {
  const bad: string[] = [];
  for (const path of sources("src")) {
    const from = unitOf(path);
    if (from === null) continue;
    for (const edge of importsOf(path)) {
      if (edge.to.startsWith("cloudflare:") && LAYERS[from] === 0) {
        bad.push(`${path} imports ${edge.to}: the core never touches the platform`);
        continue;
      }
      // The product never reaches into the demo: a deployed fence ships none of it.
      if (edge.to.startsWith("demo/")) bad.push(`${path} imports the demo`);
      const to = unitOf(edge.to);
      if (to === null || to === from) continue;
      const [a, b] = [LAYERS[from] ?? 0, LAYERS[to] ?? 0];
      if (b > a || (b === a && !edge.typeOnly)) bad.push(`${path} imports ${edge.to}`);
    }
  }
  return bad;
}

describe("the layers of src/", () => {
  it("no module imports a higher layer, a sibling's code, or the platform from the core", () => {
    expect(violations()).toEqual([]);
  });

  it("every folder and top-level file of src/ has a layer", () => {
    const units = readdirSync(join(ROOT, "src"))
      .map((name) => `src/${name}`)
      .filter((p) => statSync(join(ROOT, p)).isDirectory() || /\.tsx?$/.test(p))
      .filter((p) => p !== "src/env.d.ts");
    expect(units.filter((u) => !(u in LAYERS))).toEqual([]);
  });

  it("the import scanner sees the edges a layer check needs", () => {
    const edges = importsOf("src/app.ts").map((e) => e.to);
    expect(edges).toContain("src/core/catalogue.ts");
    expect(edges).toContain("hono");
  });
});

describe("client/", () => {
  it("imports no platform module and nothing of the server but types of the contracts and core", () => {
    // Types only: the package's declarations are bundled, so a type of the pure core (the wire
    // shapes every answer is inferred from) costs a consumer nothing at run time.
    const bad = sources("client").flatMap((path) =>
      importsOf(path)
        .filter(
          (e) =>
            e.to.startsWith("cloudflare:") ||
            (e.to.startsWith("src/") && !(e.to.startsWith("src/core/") && e.typeOnly)) ||
            (e.to.startsWith("contracts/") && !e.typeOnly),
        )
        .map((e) => `${path} imports ${e.to}`),
    );
    expect(bad).toEqual([]);
    expect(sources("client").length).toBeGreaterThan(0);
  });
});

describe("every module of src/ and client/", () => {
  it("opens with a comment saying what it owns", () => {
    const bare = [...sources("src"), ...sources("client")].filter(
      (path) => !/^\s*(\/\*\*|\/\/ )/.test(readFileSync(join(ROOT, path), "utf8")),
    );
    expect(bare).toEqual([]);
  });

  it(`is at most ${MAX_LINES} lines, so none grows into a second idea unnoticed`, () => {
    const long = [...sources("src"), ...sources("client")]
      .map((path) => ({ path, lines: readFileSync(join(ROOT, path), "utf8").split("\n").length }))
      .filter((f) => f.lines > MAX_LINES + 1)
      .map((f) => `${f.path}: ${f.lines - 1} lines`);
    expect(long).toEqual([]);
  });

  it("imports no module that imports it back, statically or on demand", () => {
    const targets = (path: string) => {
      const text = readFileSync(join(ROOT, path), "utf8");
      const dynamic = [...text.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)].map((m) =>
        relative(ROOT, resolve(dirname(join(ROOT, path)), m[1] ?? "")),
      );
      return new Set([...importsOf(path).map((e) => e.to), ...dynamic]);
    };
    const paths = sources("src");
    const edges = new Map(paths.map((path) => [path, targets(path)]));
    const circles = paths.flatMap((a) =>
      [...(edges.get(a) ?? [])]
        .filter((b) => a < b && edges.get(b)?.has(a))
        .map((b) => `${a} <-> ${b}`),
    );
    expect(circles).toEqual([]);
  });
});
