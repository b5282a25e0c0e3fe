import { describe, expect, it } from "vitest";
import { get, newRun, propose } from "../helpers.ts";

describe("answers that carry a tenant's data", () => {
  it("are sent with Cache-Control: no-store", async () => {
    const run = newRun();
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    for (const path of [
      `/v1/runs/${run}`,
      `/v1/runs/${run}/audit`,
      `/v1/runs/${run}/approvals`,
      "/v1/approvals",
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("Cache-Control"), path).toBe("no-store");
    }
  });
});
