import * as v from "valibot";

/**
 * A ticket id as the ticketing system knows it. It is filled into the tickets service's URL
 * path, so it is one plain segment: letters, digits, `_` and `-`, starting with a letter or
 * digit (never `.`, `..`, `/` or a percent sign).
 */
export const TicketId = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(64),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "ticket_id must be letters, digits, _ and -"),
  v.description(
    "Ticket id: 1-64 letters, digits, _ or -, starting with a letter or digit, e.g. T-1",
  ),
);

/** A comment body; long enough for a finding, short enough to read. */
export const CommentBody = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(2000),
  v.description("Plain text, at most 2000 characters"),
);

export const Comment = v.strictObject({
  id: v.number(),
  body: v.string(),
  created_at: v.string(),
});

export const Ticket = v.strictObject({
  ticket_id: v.string(),
  title: v.string(),
  body: v.string(),
  priority: v.picklist(["low", "normal", "high", "urgent"]),
  status: v.picklist(["open", "closed"]),
  comments: v.array(Comment),
  created_at: v.string(),
});
