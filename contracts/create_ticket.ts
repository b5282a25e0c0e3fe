import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
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
  }),
  output: v.strictObject({ ticket: Ticket }),
  timeoutMs: 5000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: { kind: "service", binding: "DEMO", method: "POST", path: "/tickets" },
} as const satisfies ToolContract;
