import { describe, expect, it } from "vitest";
import { type CpuProfile, selfTimes } from "../../scripts/bench/profile.ts";

/** A profile of `fns` (node i + 1 runs fns[i]) sampled as `samples`, each with its delta. */
function profileOf(fns: string[], samples: [string, number][]): CpuProfile {
  return {
    nodes: fns.map((functionName, i) => ({
      id: i + 1,
      callFrame: { functionName, url: "", lineNumber: 0 },
    })),
    samples: samples.map(([fn]) => fns.indexOf(fn) + 1),
    timeDeltas: samples.map(([, us]) => us),
  };
}

describe("the profile's self time per function", () => {
  it("sums each function's time and counts its samples, so a long sample shows", () => {
    const profile = profileOf(
      ["(idle)", "exec", "headerLimit"],
      [
        ["exec", 100],
        ["(idle)", 400],
        ["headerLimit", 5000],
        ["exec", 120],
        ["exec", 80],
      ],
    );
    const self = selfTimes(profile);
    expect(self.get("exec")).toEqual({ us: 300, samples: 3 });
    expect(self.get("headerLimit")).toEqual({ us: 5000, samples: 1 });
    expect(self.get("(idle)")).toEqual({ us: 400, samples: 1 });
  });
});
