import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/core/canonical.ts";
import { newApiKey, recordName } from "../src/core/keys.ts";
import { anonymous, caller, DEV_KEY, dev, get, json, newRun } from "./helpers.ts";

const CHALLENGE = 'Bearer realm="toolfence"';

async function expectUnauthenticated(res: Response, error: string | null): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  expect(res.headers.get("WWW-Authenticate")).toBe(
    error === null ? CHALLENGE : `${CHALLENGE}, error="${error}"`,
  );
  expect(await json(res)).toMatchObject({ decision: "block", reason: "unauthenticated" });
}

/** Store a raw record under a new key, as a broken or tampered issuance would. */
async function keyWithRecord(record: string): Promise<string> {
  const key = newApiKey();
  await env.API_KEYS.put(recordName(await sha256Hex(key)), record);
  return key;
}

describe("authentication", () => {
  it("answers 401 with a Bearer challenge when no credentials are sent", async () => {
    await expectUnauthenticated(await anonymous.get("/v1/tools"), null);
  });

  it("answers 401 invalid_token for a well-formed key nobody issued", async () => {
    await expectUnauthenticated(await caller(newApiKey()).get("/v1/tools"), "invalid_token");
  });

  it.each([
    ["another scheme", `Basic ${btoa("user:pass")}`],
    ["a scheme and no token", "Bearer"],
    ["a scheme and a blank token", "Bearer  "],
    ["two tokens", `Bearer ${DEV_KEY} ${DEV_KEY}`],
    ["a tab inside the token", `Bearer tf_dev\tlocal_key`],
    ["a control character inside the token", "Bearer tf_dev\u0001local_key"],
    ["a tab instead of the space", `Bearer\t${DEV_KEY}`],
    ["characters outside the token syntax", "Bearer tf_dev_local_key;admin"],
    ["a token too short", "Bearer tf_short"],
    ["a token too long", `Bearer tf_${"a".repeat(300)}`],
  ])("answers 401 invalid_request for %s", async (_what, header) => {
    await expectUnauthenticated(
      await get("/v1/tools", { Authorization: header }),
      "invalid_request",
    );
  });

  it("reads the scheme case-insensitively (RFC 9110 §11.1)", async () => {
    expect((await get("/v1/tools", { Authorization: `bEaReR ${DEV_KEY}` })).status).toBe(200);
  });

  it("keeps /healthz open and every other route closed, unknown ones included", async () => {
    expect((await anonymous.get("/healthz")).status).toBe(200);
    await expectUnauthenticated(await anonymous.get("/v1/nothing-here"), null);
    await expectUnauthenticated(await anonymous.post(`/v1/runs/${newRun()}/halt`), null);
  });

  it("writes nothing to a run for a call without credentials", async () => {
    const run = newRun();
    await expectUnauthenticated(await anonymous.propose(run, { tool: "noop", args: {} }), null);
    expect((await dev.get(`/v1/runs/${run}`)).status).toBe(404);
  });

  it("refuses the development key on any host but loopback", async () => {
    const res = await exports.default.fetch("https://toolfence.example.com/v1/tools", {
      headers: { Authorization: `Bearer ${DEV_KEY}` },
    });
    await expectUnauthenticated(res, "invalid_token");
  });

  it.each([
    ["a tenant with a slash", { tenant: "a/b", role: "operator" }],
    ["an unknown role", { tenant: "acme", role: "admin" }],
    ["an unknown member", { tenant: "acme", role: "agent", admin: true }],
  ])("refuses a key whose stored record has %s", async (_what, fields) => {
    const record = { label: "x", created_at: new Date().toISOString(), ...fields };
    const key = await keyWithRecord(JSON.stringify(record));
    await expectUnauthenticated(await caller(key).get("/v1/tools"), "invalid_token");
  });

  it("refuses a stored record that tries to reach Object.prototype", async () => {
    const record = `{"tenant":"acme","role":"agent","label":"x","created_at":"${new Date().toISOString()}","__proto__":{"role":"operator"}}`;
    const key = await keyWithRecord(record);
    await expectUnauthenticated(await caller(key).get("/v1/tools"), "invalid_token");
    expect(Object.hasOwn(Object.prototype, "role")).toBe(false);
  });
});
