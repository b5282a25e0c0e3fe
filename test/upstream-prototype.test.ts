import { describe, expect, it } from "vitest";
import { json, newRun } from "./helpers.ts";
import { proposeTo, UpstreamDouble } from "./upstream-double.ts";

const charge = { tool: "charge_card", args: { account: "acct-7", amount_cents: 1200 } };

/** An upstream answering raw JSON text, exactly as written. */
function answering(text: string): UpstreamDouble {
  return new UpstreamDouble(() =>
    Promise.resolve(new Response(text, { headers: { "Content-Type": "application/json" } })),
  );
}

describe("an upstream answer shaped to reach Object.prototype", () => {
  it.each([
    '{"charge_id":"ch_1","__proto__":{"polluted":true}}',
    '{"charge_id":"ch_1","constructor":{"prototype":{"polluted":true}}}',
  ])("is refused as outside the output contract and pollutes nothing: %s", async (text) => {
    const own = Object.getOwnPropertyNames(Object.prototype).sort();
    const res = await proposeTo(answering(text), newRun(), {
      ...charge,
      idempotency_key: `k-${crypto.randomUUID()}`,
    });
    expect(res.status).toBe(502);
    expect(await json(res)).toMatchObject({ reason: "output_contract_violation" });
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(own);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
