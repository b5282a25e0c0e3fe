import * as v from "valibot";
import type { ToolContract } from "../../src/core/contract.ts";
import { Ticket, TicketId } from "./shared.ts";

export const getTicket = {
  name: "get_ticket",
  version: "v1",
  description: "Read one support ticket with its comments. A read: free, cached for 30 s.",
  effect: "read",
  paid: false,
  input: v.strictObject({ ticket_id: TicketId }),
  output: v.strictObject({ ticket: Ticket }),
  timeoutMs: 3000,
  cacheTtlSeconds: 30,
  sharedCache: false,
  upstream: { kind: "service", binding: "DEMO", method: "GET", path: "/tickets/{ticket_id}" },
  example: {
    args: { ticket_id: "T-1" },
    result: {
      ticket: {
        ticket_id: "T-1",
        title: "Checkout returns 500",
        body: "",
        priority: "normal",
        status: "open",
        comments: [],
        created_at: "2025-01-01T00:00:00Z",
      },
    },
  },
} satisfies ToolContract;
