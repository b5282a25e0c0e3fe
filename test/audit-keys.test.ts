import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FENCE } from "../demo/fence.ts";
import { buildApp } from "../src/app.ts";
import { newSigningKey, publicJwk } from "../src/core/audit-head.ts";
import { DEVELOPMENT_SIGNING_KEY } from "../src/ledger/audit/signing-key.ts";
import { json } from "./helpers.ts";

const PATH = "/.well-known/toolfence-audit-keys";

describe("the audit signing keys (JWKS)", () => {
  it("are public, and under local development hold the development key's public half only", async () => {
    const res = await exports.default.fetch(`http://localhost${PATH}`, {
      headers: { "CF-Connecting-IP": "127.0.0.1" },
    });
    expect(res.status).toBe(200);
    const { keys } = await json<{ keys: Record<string, unknown>[] }>(res);
    expect(keys).toEqual([publicJwk(DEVELOPMENT_SIGNING_KEY)]);
    expect(keys[0]).not.toHaveProperty("d");
  });

  it("never publish or use the development key on a deployed worker", async () => {
    const res = await exports.default.fetch(`https://fence.example.com${PATH}`, {
      headers: { "CF-Ray": "8f1e-DFW", "CF-Connecting-IP": "203.0.113.9" },
    });
    expect(await json(res)).toEqual({ keys: [] });
  });

  it("publish the configured key and every retired one, so old heads still verify", async () => {
    const [current, retired] = [await newSigningKey(), await newSigningKey()];
    const bindings = {
      ...env,
      AUDIT_SIGNING_KEY: JSON.stringify(current),
      AUDIT_RETIRED_KEYS: JSON.stringify([publicJwk(retired)]),
    } as Env;
    const request = new Request(`https://fence.example.com${PATH}`, { headers: { "CF-Ray": "x" } });
    const res = await buildApp(FENCE).fetch(request, bindings);
    expect(await json(res)).toEqual({ keys: [publicJwk(current), publicJwk(retired)] });
  });
});
