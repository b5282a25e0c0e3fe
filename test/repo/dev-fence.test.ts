import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const scripts = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")).scripts as Record<
  string,
  string
>;

// `npm run dev:fence` is what `wrangler deploy` ships, tried locally with the development key.
describe("npm run dev:fence", () => {
  it("serves the deployed config alone, without the demo's environment or worker", () => {
    const command = scripts["dev:fence"] ?? "";
    expect(command).toMatch(/^wrangler dev -c wrangler\.toml /);
    expect(command).not.toContain("demo");
    expect(command).not.toContain("--env");
    expect(command).toContain("--var DEV_KEY:tf_dev_local_key");
  });

  it("leaves npm run dev on the demo", () => {
    expect(scripts.dev).toContain("--env demo -c wrangler.toml -c demo/wrangler.toml");
  });
});
