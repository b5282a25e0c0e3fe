/**
 * Console sessions that were signed out before they expired. A session is a signed cookie
 * (src/console/session.ts), valid on its own until it expires; signing out records its id
 * here, in the tenant's TenantIndex, so a copy of the cookie is refused from then on. Rows
 * are dropped once the session would have expired anyway.
 */

/** Record a session as signed out until it would have expired; drop rows past theirs. */
export function recordSignOut(sql: SqlStorage, sessionId: string, expiresAt: number): void {
  sql.exec("DELETE FROM console_signed_out WHERE expires_at <= ?", Date.now());
  sql.exec(
    "INSERT INTO console_signed_out (session_id, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
    sessionId,
    expiresAt,
  );
}

/** Whether the session was signed out. */
export function isSignedOut(sql: SqlStorage, sessionId: string): boolean {
  return (
    sql.exec("SELECT 1 FROM console_signed_out WHERE session_id = ?", sessionId).toArray().length >
    0
  );
}
