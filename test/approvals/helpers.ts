import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { type Pending, PendingSchema } from "../../src/core/shapes/decision.ts";
import { answerOf, DEV_KEY } from "../helpers.ts";

/** An urgent ticket: the shipped policy's `urgent_ticket` rule asks a person for it. */
export function urgentTicket(key: string, ticketId = `T-${crypto.randomUUID()}`) {
  return {
    tool: "create_ticket",
    args: { ticket_id: ticketId, title: "Checkout is down", priority: "urgent" },
    idempotency_key: key,
  };
}

/** POST a JSON body to a fence route with `key` (the development operator by default). */
export function postJson(path: string, body: unknown, key: string = DEV_KEY): Promise<Response> {
  return exports.default.fetch(`http://localhost${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      // Loopback for the development key (honoured only from this machine), else an RFC 5737 address.
      "CF-Connecting-IP": key === DEV_KEY ? "127.0.0.1" : "192.0.2.77",
    },
    body: JSON.stringify(body),
  });
}

/** Approve or deny an approval of `run` as `key`. */
export function decide(
  run: string,
  approvalId: string,
  decision: "approve" | "deny",
  note = "",
  key: string = DEV_KEY,
): Promise<Response> {
  return postJson(`/v1/runs/${run}/approvals/${approvalId}`, { decision, note }, key);
}

/** Read a 202 answer, failing the test if it is anything else or drifts from its shape. */
export async function pendingOf(res: Response): Promise<Pending> {
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
  return answerOf(PendingSchema, res);
}

/**
 * Move an approval's expiry into the past, as if its time had run out: in the run's ledger and
 * in the tenant's index, which both hold it.
 */
export async function lapse(run: string, approvalId: string, tenant = "default"): Promise<void> {
  const past = Date.now() - 1;
  // The tenant's index is told of a new approval after the 202 is sent: wait until it is.
  await vi.waitFor(
    async () => {
      const changed = await runInDurableObject(
        env.TENANT_INDEX.getByName(tenant),
        (_i, state) =>
          state.storage.sql.exec(
            "UPDATE approval_index SET expires_at = ? WHERE approval_id = ?",
            past,
            approvalId,
          ).rowsWritten,
      );
      expect(changed).toBe(1);
    },
    { timeout: 2_000, interval: 20 },
  );
  const stub = env.RUN_LEDGER.getByName(`${tenant}/${run}`);
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE approval SET expires_at = ? WHERE id = ?", past, approvalId);
  });
}
