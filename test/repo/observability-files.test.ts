import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/**
 * The metrics the fence defines, as Prometheus names them after OTLP translation: dots to
 * underscores, `_total` on a counter, `_seconds_bucket` on a histogram in seconds.
 */
function exportedNames(): Set<string> {
  const source = read("src/telemetry/sdk.ts");
  const names = new Set<string>();
  for (const m of source.matchAll(/createCounter\(\s*"([a-z_.]+)"/g)) {
    names.add(`${(m[1] ?? "").replaceAll(".", "_")}_total`);
  }
  for (const m of source.matchAll(/seconds\(\s*"([a-z_.]+)"/g)) {
    names.add(`${(m[1] ?? "").replaceAll(".", "_")}_seconds_bucket`);
  }
  return names;
}

describe("the dashboard and alert rules in docs/observability/", () => {
  it("query only metrics the fence exports", () => {
    const known = exportedNames();
    expect(known.size).toBeGreaterThan(5);
    for (const file of ["grafana-dashboard.json", "alerts.yml"]) {
      const used = read(`docs/observability/${file}`).match(
        /\btoolfence_[a-z_]+(?:_total|_bucket)\b/g,
      );
      expect(used?.length ?? 0).toBeGreaterThan(0);
      expect((used ?? []).filter((name) => !known.has(name))).toEqual([]);
    }
  });

  it("hold a dashboard Grafana can import", () => {
    const dashboard = JSON.parse(read("docs/observability/grafana-dashboard.json")) as {
      title: string;
      panels: { targets: { expr: string }[] }[];
    };
    expect(dashboard.title).toBe("toolfence");
    expect(dashboard.panels.every((p) => p.targets.length > 0)).toBe(true);
  });
});
