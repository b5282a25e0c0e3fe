import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EDGE_ORIGIN, edgeUrl } from "../../src/cache/tiers.ts";
import { newService } from "../cache/helpers.ts";
import { callerWith, DEV_KEY, json, newRun } from "../helpers.ts";

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

/** An MCP initialize to a run, as `key` from `address`, with extra headers. */
function mcpInit(url: string, key: string, address: string, headers: Record<string, string>) {
  return exports.default.fetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "CF-Connecting-IP": address,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Host: new URL(url).host,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }),
  });
}

describe("the MCP endpoint's DNS-rebinding defence", () => {
  it("compares Origin in full: another port or scheme of the fence's host is refused", async () => {
    const url = `http://localhost/v1/runs/${newRun("origin")}/mcp`;
    const send = (origin: string) => mcpInit(url, DEV_KEY, "127.0.0.1", { Origin: origin });
    expect((await send("http://localhost:8080")).status).toBe(403);
    expect((await send("https://localhost")).status).toBe(403);
    expect((await send("http://evil.example")).status).toBe(403);
    expect((await send("http://localhost")).status).toBe(200);
    // The first answer the MCP server gives loads its SDK, seconds on a busy machine.
  }, 20_000);

  it("checks Host against the configured host names for every key, not only the development key", async () => {
    const operator = await callerWith({ role: "operator" });
    const key = operator.key ?? "";
    const address = "198.51.100.7";
    const run = newRun("host");
    const own = await mcpInit(`http://localhost/v1/runs/${run}/mcp`, key, address, {});
    expect(own.status).toBe(200);
    const rebound = await mcpInit(`http://attacker.example/v1/runs/${run}/mcp`, key, address, {});
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toMatchObject({
      error: { message: "Invalid Host: attacker.example" },
    });
  });
});
