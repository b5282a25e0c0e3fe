import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEV_KEY, json, newRun, propose, put } from "../helpers.ts";

/** UTF-16LE bytes of `text`, as a client that honours `charset=utf-16` sends them. */
function utf16(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    out[2 * i] = text.charCodeAt(i) & 0xff;
    out[2 * i + 1] = text.charCodeAt(i) >> 8;
  }
  return out;
}

/** Send raw bytes as the development key, with `type` as Content-Type (none when null). */
function send(method: string, path: string, type: string | null, body?: Uint8Array) {
  const headers = new Headers({
    Authorization: `Bearer ${DEV_KEY}`,
    "CF-Connecting-IP": "127.0.0.1",
  });
  if (type !== null) headers.set("Content-Type", type);
  return exports.default.fetch(`http://localhost${path}`, { method, headers, body });
}

describe("the media type is checked before the body is read", () => {
  it("answers 415 to a UTF-16 body, never 400 for bytes that are not UTF-8", async () => {
    const run = newRun("charset");
    const body = utf16('{"tool":"noop","args":{}}');
    const res = await send(
      "POST",
      `/v1/runs/${run}/calls`,
      "application/json; charset=utf-16",
      body,
    );
    expect(res.status).toBe(415);
    expect(await json(res)).toMatchObject({ reason: "unsupported_media_type", decision: "block" });
  });

  it("requires JSON for a run's limits", async () => {
    const run = newRun("charset");
    expect((await put(`/v1/runs/${run}`, {})).status).toBe(201);
    const limits = new TextEncoder().encode('{"max_mutations":1}');
    for (const type of ["text/plain", null]) {
      const res = await send("PUT", `/v1/runs/${run}`, type, limits);
      expect(res.status, String(type)).toBe(415);
      expect(await json(res)).toMatchObject({ reason: "unsupported_media_type" });
    }
    const status = await json<{ limits: { max_mutations: number } }>(
      await send("GET", `/v1/runs/${run}`, null),
    );
    expect(status.limits.max_mutations).toBe(3);
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
  });
});
