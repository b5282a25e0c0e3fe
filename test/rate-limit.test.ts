import { describe, expect, it } from "vitest";
import { callerWith, json } from "./helpers.ts";

// vitest.config.ts sets CALL_LIMITER to 20 requests per 60 s for each key.
const LIMIT = 20;

describe("per-key rate limit", () => {
  it("answers 429 rate_limited with Retry-After once a key passes its limit, and not before", async () => {
    const agent = await callerWith();
    const statuses: number[] = [];
    let limited: Response | undefined;
    // Windows follow the wall clock; 2 × LIMIT + 1 requests overflow one even across a rollover.
    for (let i = 0; i <= 2 * LIMIT && limited === undefined; i++) {
      const res = await agent.get("/v1/tools");
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(LIMIT);
    expect(limited?.headers.get("Retry-After")).toBe("60");
    expect(await json(limited as Response)).toMatchObject({
      status: 429,
      decision: "retry",
      reason: "rate_limited",
    });
  });

  it("limits each key on its own", async () => {
    const busy = await callerWith();
    for (let i = 0; i <= 2 * LIMIT; i++) await busy.get("/v1/tools");
    const quiet = await callerWith({ tenant: busy.tenant });
    expect((await quiet.get("/v1/tools")).status).toBe(200);
  });
});
