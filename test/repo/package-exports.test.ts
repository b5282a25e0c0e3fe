import { describe, expect, it } from "vitest";

describe("the package's subpath exports", () => {
  it("resolve toolfence/client, toolfence/ai and toolfence/openai-agents", async () => {
    const client = await import("toolfence/client");
    expect(typeof client.createClient).toBe("function");
    expect(typeof client.intentKey).toBe("function");
    expect(typeof (await import("toolfence/ai")).fenceTools).toBe("function");
    expect(typeof (await import("toolfence/openai-agents")).fenceAgentTools).toBe("function");
  });

  it("makes the same intent key from the same parts, and another from other parts", async () => {
    const { intentKey } = await import("toolfence/client");
    const a = await intentKey("create", "T-1");
    expect(a).toMatch(/^intent:[0-9a-f]{64}$/);
    expect(await intentKey("create", "T-1")).toBe(a);
    expect(await intentKey("create", "T-2")).not.toBe(a);
  });
});
