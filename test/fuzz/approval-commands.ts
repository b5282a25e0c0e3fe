import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { expect } from "vitest";
import { decideInModel } from "./approval-model.ts";
import { command, EVIDENCE } from "./ledger-commands.ts";

/** The model-based test's operator commands: decide an approval, let one run out of time. */

const ACT = { actor: "model-operator", note: "generated", evidence: EVIDENCE };

export const decideApproval = fc
  .tuple(fc.nat(), fc.constantFrom<"approve" | "deny">("approve", "approve", "deny"))
  .map(([i, decision]) =>
    command(
      `${decision} approval #${i}`,
      (m) => m.approvals.length > 0,
      async (m, r) => {
        const index = i % m.approvals.length;
        const listed = (await r.stub.approvals(null)) ?? [];
        const id = listed[index]?.approval_id ?? "";
        const expected = decideInModel(m, index, decision);
        const answer = await r.stub.decide(id, decision, ACT);
        expect(
          answer.kind === "refuse"
            ? { kind: "refuse", reason: answer.refusal.reason }
            : { kind: answer.kind },
        ).toEqual(expected);
      },
    ),
  );

export const lapseApproval = fc.nat().map((i) =>
  command(
    `let approval #${i} run out of time`,
    (m) => m.approvals.some((a) => a.status === "pending" || a.status === "approved"),
    async (m, r) => {
      const live = m.approvals.filter((a) => a.status === "pending" || a.status === "approved");
      const target = live[i % live.length];
      if (target === undefined) throw new Error("no live approval");
      const index = m.approvals.indexOf(target);
      const listed = (await r.stub.approvals(null)) ?? [];
      await runInDurableObject(r.stub, (_i, state) => {
        state.storage.sql.exec(
          "UPDATE approval SET expires_at = ? WHERE id = ?",
          Date.now() - 1,
          listed[index]?.approval_id ?? "",
        );
      });
      target.lapsed = true;
    },
  ),
);
