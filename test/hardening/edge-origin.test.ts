import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EDGE_ORIGIN, edgeUrl } from "../../src/cache/tiers.ts";
import { newService } from "../cache/helpers.ts";
import { DEV_KEY, json, newRun } from "../helpers.ts";

function readFrom(host: string, run: string, service: string) {
  return exports.default.fetch(`http://${host}/v1/runs/${run}/calls`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${DEV_KEY}`,
      "CF-Connecting-IP": "127.0.0.1",
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ tool: "fetch_service_logs", args: { service, window: "5m" } }),
  });
}

describe("the edge tier's keys", () => {
  it("do not depend on the Host a request was sent to", async () => {
    const service = newService();
    const first = await readFrom("localhost", newRun(), service);
    expect(first.headers.get("X-Cache")).toBe("miss");
    const key = (await json<{ cache_key: string }>(first)).cache_key;
    // The store is deferred; wait until the edge tier holds it.
    for (
      let i = 0;
      i < 50 && (await caches.default.match(edgeUrl(EDGE_ORIGIN, key))) === undefined;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const other = await readFrom("127.0.0.1", newRun(), service);
    expect(other.headers.get("X-Cache")).toBe("hit-memory");
    expect(await caches.default.match(edgeUrl("http://localhost", key))).toBeUndefined();
  });
});
