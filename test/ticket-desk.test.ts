import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TicketDesk } from "../demo/upstreams/TicketDesk.ts";
import type { DemoEnv } from "../demo/upstreams/upstreams.ts";

/** The demo tickets service's own object, fresh for each test (bound in vitest.config.ts). */
function desk() {
  return (env as unknown as DemoEnv).TICKET_DESK.getByName(`desk-${crypto.randomUUID()}`);
}

describe("the demo tickets service", () => {
  it("reads a ticket's comments through an index, not a scan of every comment", async () => {
    const stub = desk();
    await runInDurableObject(stub, (d: TicketDesk, state) => {
      expect(d.create({ ticket_id: "T-1", priority: "low" }, "k-create").status).toBe(201);
      for (let i = 0; i < 3; i++) expect(d.comment("T-1", `c${i}`, `k-c${i}`).status).toBe(201);
      const plan = (query: string) =>
        state.storage.sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, "T-1")
          .toArray()
          .map((r) => r.detail)
          .join("; ");
      // The ticket's comments are read through the index, never a scan of every comment.
      expect(
        plan("SELECT id, body, created_at FROM comment WHERE ticket_id = ? ORDER BY id"),
      ).toMatch(/USING (COVERING )?INDEX comment_by_ticket/);
      expect(d.get("T-1")).toMatchObject({
        status: 200,
        body: { ticket: { comments: [{ body: "c0" }, { body: "c1" }, { body: "c2" }] } },
      });
      expect(d.comment("T-none", "x", "k-none")).toMatchObject({ status: 404 });
    });
  });
});
