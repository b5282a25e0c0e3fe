/**
 * The demo tickets service's storage: one Durable Object per tenant that honours
 * `Idempotency-Key`.
 */
import { DurableObject } from "cloudflare:workers";
import type { DemoEnv } from "./upstreams.ts";

/** A stored answer of the demo tickets service. */
export interface DeskAnswer {
  /** HTTP status. */
  status: number;
  /** JSON body. */
  body: unknown;
}

/** What `create_ticket` sends. */
export interface NewTicket {
  /** Caller-chosen id. */
  ticket_id: string;
  /** Optional title; defaults to the id. */
  title?: string;
  /** Optional description. */
  body?: string;
  /** Priority. */
  priority: string;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS ticket (
    ticket_id TEXT PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL,
    priority TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS comment (
    id INTEGER PRIMARY KEY AUTOINCREMENT, ticket_id TEXT NOT NULL, body TEXT NOT NULL,
    created_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS comment_by_ticket ON comment (ticket_id, id);
  CREATE TABLE IF NOT EXISTS seen_key (key TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL);`;

type TicketRow = Record<string, SqlStorageValue> & { ticket_id: string };
type CommentRow = { id: number; body: string; created_at: string };

/**
 * The demo ticketing system's storage: one object per tenant. It honours
 * `Idempotency-Key` the way a well-behaved upstream does: a repeated key gets the
 * first successful answer back and changes nothing.
 */
export class TicketDesk extends DurableObject<DemoEnv> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: DemoEnv) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
  }

  create(t: NewTicket, key: string | null): DeskAnswer {
    return this.once(key, () => {
      if (this.exists(t.ticket_id)) {
        return { status: 409, body: { error: `ticket ${t.ticket_id} already exists` } };
      }
      this.sql.exec(
        "INSERT INTO ticket VALUES (?, ?, ?, ?, 'open', ?)",
        t.ticket_id,
        t.title ?? t.ticket_id,
        t.body ?? "",
        t.priority,
        new Date().toISOString(),
      );
      return { status: 201, body: { ticket: this.find(t.ticket_id) } };
    });
  }

  comment(ticketId: string, body: string, key: string | null): DeskAnswer {
    return this.once(key, () => {
      if (!this.exists(ticketId)) {
        return { status: 404, body: { error: `no ticket ${ticketId}` } };
      }
      const row = this.sql
        .exec<CommentRow>(
          "INSERT INTO comment (ticket_id, body, created_at) VALUES (?, ?, ?) RETURNING id, body, created_at",
          ticketId,
          body,
          new Date().toISOString(),
        )
        .one();
      return { status: 201, body: { ticket_id: ticketId, comment: row } };
    });
  }

  get(ticketId: string): DeskAnswer {
    const ticket = this.find(ticketId);
    return ticket === null
      ? { status: 404, body: { error: `no ticket ${ticketId}` } }
      : { status: 200, body: { ticket } };
  }

  private once(key: string | null, apply: () => DeskAnswer): DeskAnswer {
    return this.ctx.storage.transactionSync(() => {
      if (key !== null) {
        const seen = this.sql
          .exec<{ status: number; body: string }>(
            "SELECT status, body FROM seen_key WHERE key = ?",
            key,
          )
          .toArray()[0];
        if (seen !== undefined) return { status: seen.status, body: JSON.parse(seen.body) };
      }
      const answer = apply();
      // A refused request changed nothing, so only a success is remembered: the same key may
      // try again once the cause is fixed (an operator's `retry_allowed`).
      if (key !== null && answer.status < 300) {
        this.sql.exec(
          "INSERT INTO seen_key VALUES (?, ?, ?)",
          key,
          answer.status,
          JSON.stringify(answer.body),
        );
      }
      return answer;
    });
  }

  /** Whether the ticket exists; reads no comments. */
  private exists(ticketId: string): boolean {
    return this.sql.exec("SELECT 1 FROM ticket WHERE ticket_id = ?", ticketId).toArray().length > 0;
  }

  /** The ticket with its comments, oldest first (read through `comment_by_ticket`). */
  private find(ticketId: string): Record<string, unknown> | null {
    const row = this.sql
      .exec<TicketRow>("SELECT * FROM ticket WHERE ticket_id = ?", ticketId)
      .toArray()[0];
    if (row === undefined) return null;
    const comments = this.sql
      .exec<CommentRow>(
        "SELECT id, body, created_at FROM comment WHERE ticket_id = ? ORDER BY id",
        ticketId,
      )
      .toArray();
    return { ...row, comments };
  }
}
