import * as v from "valibot";
import type { ToolContract } from "../../src/core/contract.ts";
import { Ticket, TicketId } from "./shared.ts";

export const createTicket = {
  name: "create_ticket",
  version: "v1",
  description:
    "Open a support ticket with a caller-chosen id. A mutation: send an idempotency key.",
  effect: "mutate",
  paid: true,
  input: v.strictObject({
    ticket_id: TicketId,
    title: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    body: v.optional(v.pipe(v.string(), v.maxLength(2000))),
    priority: v.optional(v.picklist(["low", "normal", "high", "urgent"]), "normal"),
    reporter_email: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(254),
        v.email(),
        v.description("Who reported it; kept in the audit as a keyed digest only"),
      ),
    ),
  }),
  output: v.strictObject({ ticket: Ticket }),
  // Personal data: the audit, its export and archive keep a keyed digest, never the address.
  sensitive: ["reporter_email"],
  timeoutMs: 5000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  // The demo's ticket desk answers a repeated Idempotency-Key with its first answer.
  upstream: {
    kind: "service",
    binding: "DEMO",
    method: "POST",
    path: "/tickets",
    idempotent: true,
  },
  example: {
    args: { ticket_id: "T-1", title: "Auth is down", priority: "high" },
    result: {
      ticket: {
        ticket_id: "T-1",
        title: "Auth is down",
        body: "",
        priority: "high",
        status: "open",
        comments: [{ id: 7, body: "looks like a bad deploy", created_at: "2025-01-01T00:00:00Z" }],
        created_at: "2025-01-01T00:00:00Z",
      },
    },
  },
} satisfies ToolContract;
