import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import { FENCE } from "../../demo/fence.ts";
import { gate } from "../../src/core/gate.ts";
import { MAX_JSON_DEPTH } from "../../src/http/limits.ts";
import { type FuzzCall, fuzzCall } from "./arbitraries.ts";
import { FUZZ_SEED } from "./seed.ts";
import { TOOLS } from "./tools.ts";

const limits = { maxDepth: MAX_JSON_DEPTH };

/** Put a generated call through the stateless gate, as the calls route would. */
function gateOf(call: FuzzCall) {
  const raw = {
    contentType: call.contentType,
    text: call.body,
    headerKey: call.headers["Idempotency-Key"] ?? null,
    callerTools: null,
  };
  return gate(FENCE, raw, limits, () => null);
}

describe("the gate against generated calls", () => {
  it("generates for tools the contracts define, with the same effects", () => {
    const contracts = new Map(CONTRACTS.map((c) => [c.name, c.effect === "mutate"]));
    for (const t of TOOLS) expect([t.name, contracts.get(t.name)]).toEqual([t.name, t.mutates]);
    expect(TOOLS.length).toBeGreaterThanOrEqual(4);
  });

  it("passes every call generated valid and refuses every call generated invalid", async () => {
    await fc.assert(
      fc.asyncProperty(fuzzCall, async (call) => {
        const gated = await gateOf(call);
        expect({ kind: call.kind, passed: gated.ok }).toEqual({
          kind: call.kind,
          passed: call.valid,
        });
      }),
      { seed: FUZZ_SEED, numRuns: 3_000 },
    );
  });

  it("hands a tool only arguments that keep its input contract", async () => {
    await fc.assert(
      fc.asyncProperty(fuzzCall, async (call) => {
        const gated = await gateOf(call);
        if (!gated.ok) return;
        const { contract, args, key } = gated.value;
        expect(Array.isArray(args)).toBe(false);
        expect(v.is(contract.input, args)).toBe(true);
        if (contract.effect === "mutate") expect(key).toMatch(/^[A-Za-z0-9._:~+/=-]{8,128}$/);
      }),
      { seed: FUZZ_SEED + 1, numRuns: 3_000 },
    );
  });
});
