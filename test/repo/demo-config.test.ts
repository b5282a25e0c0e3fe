import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { DEMO_CONFIG, demoConfig } from "../../scripts/lib/dev-server.ts";

const root = resolve(import.meta.dirname, "../..");
const source = resolve(root, DEMO_CONFIG);
const folder = mkdtempSync(join(tmpdir(), "toolfence-demo-config-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The demo upstreams' config as the bench's `wrangler dev` gets it, read back by wrangler. */
function written(vars: Record<string, string>, env?: string) {
  const path = join(folder, `demo-${Object.keys(vars).length}.toml`);
  writeFileSync(path, demoConfig(readFileSync(source, "utf8"), source, vars));
  return unstable_readConfig({ config: path, env }, { hideWarnings: true });
}

// `wrangler dev -c wrangler.toml -c demo/wrangler.toml --var X:Y` sets X on the fence only;
// the bench's instant log backend lives in the demo upstreams worker, so its config carries it.
describe("the demo upstreams' config for a local fence", () => {
  it("sets a var the demo declares, in its demo environment and at its top", () => {
    const vars = { DEMO_LOG_LATENCY_MS: "0-0", DEV_KEY: "tf_dev_local_key" };
    expect(written(vars, "demo").vars.DEMO_LOG_LATENCY_MS).toBe("0-0");
    expect(written(vars).vars.DEMO_LOG_LATENCY_MS).toBe("0-0");
  });

  it("declares no var the demo does not, and keeps the others as they are", () => {
    const config = written({ DEV_KEY: "tf_dev_local_key" }, "demo");
    expect(config.vars).toEqual({ DEMO_LOG_LATENCY_MS: "300-800" });
  });

  it("runs the demo's own entry and object from wherever it is written", () => {
    const config = written({ DEMO_LOG_LATENCY_MS: "0-0" }, "demo");
    expect(config.name).toBe("toolfence-demo-upstreams");
    expect(config.main).toBe(resolve(root, "demo/upstreams/index.ts"));
    expect(config.durable_objects.bindings).toEqual([
      { name: "TICKET_DESK", class_name: "TicketDesk" },
    ]);
  });
});
