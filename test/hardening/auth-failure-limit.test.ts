import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newApiKey } from "../../src/core/keys.ts";
import { json } from "../helpers.ts";

/** The failed-authentication limit per address in tests (vitest.config.ts). */
const LIMIT = 20;

function unknownKeyFrom(address: string) {
  return exports.default.fetch("http://localhost/v1/tools", {
    headers: { Authorization: `Bearer ${newApiKey()}`, "CF-Connecting-IP": address },
  });
}

describe("failed authentications", () => {
  it("are limited per client address: a flood of unknown keys gets 429, other addresses 401", async () => {
    const flooding = `203.0.113.${1 + Math.floor(Math.random() * 254)}`;
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push((await unknownKeyFrom(flooding)).status);
    expect(statuses.slice(0, LIMIT).every((s) => s === 401)).toBe(true);
    const limited = await unknownKeyFrom(flooding);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(await json(limited)).toMatchObject({ decision: "retry", reason: "rate_limited" });
    expect((await unknownKeyFrom("198.18.0.7")).status).toBe(401);
  });
});
