import { describe, expect, it } from "vitest";
import { foldCalls, get, json, newRun, propose, runStatus } from "../helpers.ts";
import { backendQueries, logsCall, newService, proposeSettled } from "./helpers.ts";

interface CallBody {
  decision: string;
  result: { logs: string[] };
  cache_key: string;
  budget: { paid_calls: { used: number } };
}

describe("identical reads with permuted keys", () => {
  it("make one backend query: the agent's miss, then the critic's hit from memory", async () => {
    const service = newService();
    const agent = newRun("agent");
    const critic = newRun("critic");
    const first = await proposeSettled(agent, logsCall(service));
    const permuted = `{"args":{"window":"5m","service":"${service}"},"tool":"fetch_service_logs"}`;
    const second = await proposeSettled(critic, permuted);
    expect(first.headers.get("X-Cache")).toBe("miss");
    expect(second.headers.get("X-Cache")).toBe("hit-memory");
    const [a, b] = [await json<CallBody>(first), await json<CallBody>(second)];
    expect(a.decision).toBe("applied");
    expect(b.decision).toBe("cached");
    expect(b.cache_key).toBe(a.cache_key);
    expect(second.headers.get("X-Cache-Key")).toBe(a.cache_key);
    expect(b.result).toEqual(a.result);
    expect(await backendQueries(service)).toBe(1);
    expect(a.budget.paid_calls.used).toBe(1);
    expect(b.budget.paid_calls.used).toBe(0);
  });

  it("hits the same entry from another body form (an Anthropic tool-use block)", async () => {
    const service = newService();
    await proposeSettled(newRun(), logsCall(service, "1h"));
    const block = {
      type: "tool_use",
      name: "fetch_service_logs",
      input: { window: "1h", service },
    };
    const res = await proposeSettled(newRun(), block);
    expect(res.headers.get("X-Cache")).toBe("hit-memory");
    expect(await backendQueries(service)).toBe(1);
  });

  it("records the miss and the hit in the audit log, and charges only the miss", async () => {
    const service = newService();
    const run = newRun();
    await proposeSettled(run, logsCall(service));
    await proposeSettled(run, logsCall(service));
    const page = await json<{
      entries: { seq: number; of: number | null; decision: string; cache: string | null }[];
    }>(await get(`/v1/runs/${run}/audit`));
    expect(foldCalls(page.entries).map((e) => [e.decision, e.cache])).toEqual([
      ["applied", "miss"],
      ["cached", "hit-memory"],
    ]);
    expect((await runStatus(run)).budget.paid_calls.used).toBe(1);
  });

  it("shares one execution among concurrent identical misses, charging one paid call", async () => {
    const service = newService();
    const run = newRun();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => propose(run, logsCall(service))),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    const caches = answers.map((r) => r.headers.get("X-Cache")).sort();
    expect(caches).toEqual([
      "hit-memory",
      "hit-memory",
      "hit-memory",
      "hit-memory",
      "hit-memory",
      "hit-memory",
      "hit-memory",
      "miss",
    ]);
    expect(await backendQueries(service)).toBe(1);
    const status = await runStatus(run);
    expect(status.budget.paid_calls.used).toBe(1);
    expect(status.decisions).toEqual({ applied: 1, cached: 7 });
  });
});
