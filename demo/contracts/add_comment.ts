import * as v from "valibot";
import type { ToolContract } from "../../src/core/contract.ts";
import { Comment, CommentBody, TicketId } from "./shared.ts";

export const addComment = {
  name: "add_comment",
  version: "v1",
  description: "Add a comment to an existing ticket. A mutation: send an idempotency key.",
  effect: "mutate",
  destructive: false,
  paid: true,
  input: v.strictObject({ ticket_id: TicketId, body: CommentBody }),
  output: v.strictObject({ ticket_id: v.string(), comment: Comment }),
  timeoutMs: 5000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: {
    kind: "service",
    binding: "DEMO",
    method: "POST",
    path: "/tickets/{ticket_id}/comments",
    // The demo's ticket desk answers a repeated Idempotency-Key with its first answer.
    idempotent: true,
  },
  example: {
    args: { ticket_id: "T-1", body: "looks like a bad deploy" },
    result: {
      ticket_id: "T-1",
      comment: { id: 7, body: "looks like a bad deploy", created_at: "2025-01-01T00:00:00Z" },
    },
  },
} satisfies ToolContract;
