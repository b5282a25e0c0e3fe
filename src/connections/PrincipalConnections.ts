/**
 * The PrincipalConnections object, one per tenant and principal (`<tenant>/<owner id>`): that
 * principal's upstream connections, each one upstream's OAuth tokens sealed under the
 * deployment's key ring (token-keys.ts), and the browser flows under way. It is the single
 * writer of its tokens: a refresh token that rotates at every use (OAuth 2.1 §4.3.1) is spent
 * by this object alone, one refresh at a time per upstream, so two calls never present the
 * same one. KV could not do that: it has no compare-and-set.
 */
import { DurableObject } from "cloudflare:workers";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/client";
import type { ConnectionOwner } from "../core/connection-owner.ts";
import { migrate } from "../ledger/schema/migrate.ts";
import { dropFromDirectory, listInDirectory } from "./directory.ts";
import { revokeTokens } from "./oauth-requests.ts";
import type { ConnectionView, FlowSnapshot, Grant, OwnerRef, TokenAnswer } from "./protocol.ts";
import { type KeyRing, keyRingOf, openSecret, sealSecret } from "./token-keys.ts";

/**
 * The object's schema, numbered and append-only (step 1 is the whole schema). Tokens and the
 * client's registration live only in `sealed` columns, each with the id of the key beside it.
 */
export const CONNECTION_MIGRATIONS: readonly string[] = [
  `CREATE TABLE owner (
     one INTEGER PRIMARY KEY CHECK (one = 1),
     tenant TEXT NOT NULL,
     owner_id TEXT NOT NULL,
     owner TEXT NOT NULL
   );
   CREATE TABLE connection (
     upstream TEXT PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     resource TEXT NOT NULL,
     issuer TEXT NOT NULL,
     discovery TEXT NOT NULL,
     kid TEXT NOT NULL,
     sealed TEXT NOT NULL,
     scope TEXT,
     subject TEXT,
     issued_at INTEGER NOT NULL,
     expires_at INTEGER,
     created_at INTEGER NOT NULL,
     refreshed_at INTEGER,
     last_used_at INTEGER
   ) WITHOUT ROWID;
   CREATE TABLE pending_flow (
     state TEXT PRIMARY KEY,
     kid TEXT NOT NULL,
     sealed TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE used_ticket (
     nonce TEXT PRIMARY KEY,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
];

/** No one-script form: the steps are applied as they are. */
const NO_FRESH_SCHEMA = { steps: 0, sql: "" };

/** How long a person may take at the upstream's authorization server. */
export const FLOW_TTL_MS = 10 * 60_000;

/** The most of a token's life kept as margin: it is refreshed this long before it expires. */
const MAX_MARGIN_MS = 60_000;

/** What a connection's sealed column holds. */
interface Secrets {
  tokens: OAuthTokens;
  client: OAuthClientInformationMixed;
}

/** A connection's row. */
type Row = {
  upstream: string;
  id: string;
  resource: string;
  issuer: string;
  discovery: string;
  kid: string;
  sealed: string;
  scope: string | null;
  subject: string | null;
  issued_at: number;
  expires_at: number | null;
  created_at: number;
  refreshed_at: number | null;
  last_used_at: number | null;
};

const NONE: TokenAnswer = { kind: "none" };

/** A connection's tokens are bound to where they belong: this owner, upstream and id. */
function tokenBinding(who: OwnerRef, upstream: string, id: string): string {
  return JSON.stringify(["token", who.tenant, who.ownerId, upstream, id]);
}

/** A pending flow is bound to its owner and state. */
function flowBinding(who: OwnerRef, state: string): string {
  return JSON.stringify(["flow", who.tenant, who.ownerId, state]);
}

/** A connection's id: `cn_` and 96 random bits as hex. */
function newConnectionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `cn_${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Whether a row's access token is still good to send: until its expiry less a margin (a fifth
 * of its life, at most a minute), so it does not expire on its way; one without an expiry is
 * good until the upstream refuses it.
 */
function live(row: Row, now: number): boolean {
  if (row.expires_at === null) return true;
  const margin = Math.min(MAX_MARGIN_MS, (row.expires_at - row.issued_at) / 5);
  return now < row.expires_at - margin;
}

/** One principal's upstream connections (see the module's comment). */
export class PrincipalConnections extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Per upstream, the answer being decided: calls that arrive meanwhile share it. */
  private readonly deciding = new Map<string, Promise<TokenAnswer>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(this.sql, CONNECTION_MIGRATIONS, NO_FRESH_SCHEMA);
  }

  /**
   * The access token a call to `upstream` sends: the stored one while it lives, else a
   * refreshed one (the person is not asked). A refresh the server refuses for good
   * (`invalid_grant`) deletes the connection: the call then asks the person to connect again.
   */
  token(upstream: string): Promise<TokenAnswer> {
    const ongoing = this.deciding.get(upstream);
    if (ongoing !== undefined) return ongoing;
    const answer = this.decide(upstream).finally(() => this.deciding.delete(upstream));
    this.deciding.set(upstream, answer);
    return answer;
  }

  /** The upstream refused a token from `connectionId` (401): refresh it before the next call. */
  rejected(upstream: string, connectionId: string): void {
    this.sql.exec(
      "UPDATE connection SET expires_at = 0, issued_at = 0 WHERE upstream = ? AND id = ?",
      upstream,
      connectionId,
    );
  }

  /**
   * Keep a flow while the person is at the authorization server, once per connect link: the
   * link's nonce is spent in the same transaction ("used" when it was spent before).
   */
  async begin(
    who: OwnerRef,
    state: string,
    snapshot: FlowSnapshot,
    link: { nonce: string; expiresAt: number },
  ): Promise<"ok" | "used" | "unavailable"> {
    const ring = await keyRingOf(this.env);
    if (!ring.ok) return "unavailable";
    const sealed = await sealSecret(ring.value, flowBinding(who, state), snapshot);
    const now = Date.now();
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM used_ticket WHERE expires_at < ?", now);
      this.sql.exec("DELETE FROM pending_flow WHERE expires_at < ?", now);
      const spent = this.sql
        .exec(
          "INSERT INTO used_ticket (nonce, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING nonce",
          link.nonce,
          link.expiresAt,
        )
        .toArray();
      if (spent.length === 0) return "used";
      this.setOwner(who);
      this.sql.exec(
        "INSERT INTO pending_flow (state, kid, sealed, expires_at) VALUES (?, ?, ?, ?)",
        state,
        sealed.kid,
        sealed.sealed,
        now + FLOW_TTL_MS,
      );
      return "ok";
    });
  }

  /** Take the flow of `state` (once, unexpired), or null. */
  async finish(state: string): Promise<FlowSnapshot | null> {
    const now = Date.now();
    const taken = this.ctx.storage.transactionSync(
      () =>
        this.sql
          .exec<{ kid: string; sealed: string; expires_at: number }>(
            "DELETE FROM pending_flow WHERE state = ? RETURNING kid, sealed, expires_at",
            state,
          )
          .toArray()[0],
    );
    const who = this.owner();
    if (taken === undefined || taken.expires_at <= now || who === null) return null;
    const ring = await keyRingOf(this.env);
    if (!ring.ok) return null;
    return (await openSecret(ring.value, flowBinding(who, state), taken)) as FlowSnapshot | null;
  }

  /**
   * Store a finished flow's tokens as the owner's connection to its upstream (the owner its
   * flow began for), replacing, and revoking at the upstream, the one it had; listed in the
   * tenant's directory.
   */
  async store(grant: Grant): Promise<ConnectionView | null> {
    const ring = await keyRingOf(this.env);
    const who = this.owner();
    if (!ring.ok || who === null) return null;
    const now = Date.now();
    const id = newConnectionId();
    const secrets: Secrets = { tokens: grant.tokens, client: grant.client };
    const sealed = await sealSecret(ring.value, tokenBinding(who, grant.upstream, id), secrets);
    const prior = this.row(grant.upstream);
    const expiresIn = grant.tokens.expires_in;
    const row: Row = {
      upstream: grant.upstream,
      id,
      resource: grant.resource,
      issuer:
        grant.discovery.authorizationServerMetadata?.issuer ??
        grant.discovery.authorizationServerUrl,
      discovery: JSON.stringify(grant.discovery),
      kid: sealed.kid,
      sealed: sealed.sealed,
      scope: grant.tokens.scope ?? null,
      subject: grant.subject,
      issued_at: now,
      expires_at: expiresIn === undefined ? null : now + expiresIn * 1000,
      created_at: now,
      refreshed_at: null,
      last_used_at: null,
    };
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM connection WHERE upstream = ?", grant.upstream);
      this.insert(row);
    });
    const view = this.viewOf(row, who);
    await listInDirectory(this.env, who.tenant, view);
    if (prior !== null) await this.forget(prior, who, ring.value);
    return view;
  }

  /** The owner's connections, newest first; no token. */
  list(): ConnectionView[] {
    const who = this.owner();
    if (who === null) return [];
    return this.sql
      .exec<Row>("SELECT * FROM connection ORDER BY created_at DESC")
      .toArray()
      .map((row) => this.viewOf(row, who));
  }

  /** Delete a connection, revoking its tokens at the upstream; whether there was one. */
  async remove(connectionId: string): Promise<boolean> {
    const row = this.sql
      .exec<Row>("SELECT * FROM connection WHERE id = ?", connectionId)
      .toArray()[0];
    return row === undefined ? false : this.delete(row);
  }

  /** Delete every connection to `upstream` (at most one); how many there were. */
  async removeUpstream(upstream: string): Promise<number> {
    const row = this.row(upstream);
    return row !== null && (await this.delete(row)) ? 1 : 0;
  }

  /** Delete every connection of the owner (their key was revoked); how many there were. */
  async removeAll(): Promise<number> {
    const rows = this.sql.exec<Row>("SELECT * FROM connection").toArray();
    const deleted = await Promise.all(rows.map((row) => this.delete(row)));
    return deleted.filter(Boolean).length;
  }

  private async decide(upstream: string): Promise<TokenAnswer> {
    const row = this.row(upstream);
    const who = this.owner();
    if (row === null || who === null) return NONE;
    const ring = await keyRingOf(this.env);
    if (!ring.ok) return { kind: "unavailable", detail: ring.error };
    const secrets = (await openSecret(
      ring.value,
      tokenBinding(who, upstream, row.id),
      row,
    )) as Secrets | null;
    // Sealed under a key no longer in the ring (or altered): unusable, so gone.
    if (secrets === null) return this.dropped(row, who);
    const now = Date.now();
    if (live(row, now)) {
      this.sql.exec("UPDATE connection SET last_used_at = ? WHERE id = ?", now, row.id);
      // Read under an older key: sealed again under the current one (the ring rotates).
      if (row.kid !== ring.value.current.kid) await this.reseal(ring.value, who, row, secrets, {});
      return this.liveOf(row, secrets.tokens.access_token);
    }
    const refreshToken = secrets.tokens.refresh_token;
    if (refreshToken === undefined) return this.dropped(row, who);
    const discovery = JSON.parse(row.discovery);
    // Loaded on the first refresh: the SDK is evaluated only when one is needed.
    const { refreshTokens } = await import("./oauth-client.ts");
    const refreshed = await refreshTokens({
      discovery,
      client: secrets.client,
      resource: row.resource,
      refreshToken,
    });
    // Deleted or replaced while the server answered: this refresh is for nothing.
    const current = this.row(upstream);
    if (current?.id !== row.id) return NONE;
    if (!refreshed.ok) {
      if (refreshed.dead) return this.dropped(row, who);
      return { kind: "unavailable", detail: refreshed.detail };
    }
    const at = Date.now();
    const expiresIn = refreshed.tokens.expires_in;
    await this.reseal(
      ring.value,
      who,
      row,
      { ...secrets, tokens: refreshed.tokens },
      {
        issued_at: at,
        expires_at: expiresIn === undefined ? null : at + expiresIn * 1000,
        refreshed_at: at,
        last_used_at: at,
        scope: refreshed.tokens.scope ?? row.scope,
      },
    );
    return this.liveOf(row, refreshed.tokens.access_token);
  }

  /** Seal `secrets` again under the current key, with `changes` to the row's other columns. */
  private async reseal(
    ring: KeyRing,
    who: OwnerRef,
    row: Row,
    secrets: Secrets,
    changes: Partial<Row>,
  ): Promise<void> {
    const sealed = await sealSecret(ring, tokenBinding(who, row.upstream, row.id), secrets);
    const next: Row = { ...row, ...changes, kid: sealed.kid, sealed: sealed.sealed };
    // By id: a row deleted meanwhile stays deleted.
    this.sql.exec(
      `UPDATE connection SET kid = ?, sealed = ?, scope = ?, issued_at = ?, expires_at = ?,
         refreshed_at = ?, last_used_at = ? WHERE id = ?`,
      next.kid,
      next.sealed,
      next.scope,
      next.issued_at,
      next.expires_at,
      next.refreshed_at,
      next.last_used_at,
      row.id,
    );
  }

  private liveOf(row: Row, token: string): TokenAnswer {
    const { id: connectionId, resource, subject } = row;
    return { kind: "live", token, connectionId, resource, subject };
  }

  /** Delete a row found unusable (no revocation: its tokens are dead or unreadable). */
  private async dropped(row: Row, who: OwnerRef): Promise<TokenAnswer> {
    this.sql.exec("DELETE FROM connection WHERE id = ?", row.id);
    await dropFromDirectory(this.env, who.tenant, who.ownerId, row.id);
    return NONE;
  }

  /** Delete a row and revoke its tokens at the upstream; whether it was there. */
  private async delete(row: Row): Promise<boolean> {
    const who = this.owner();
    const written = this.sql.exec("DELETE FROM connection WHERE id = ?", row.id).rowsWritten;
    if (written === 0 || who === null) return false;
    const ring = await keyRingOf(this.env);
    if (ring.ok) await this.forget(row, who, ring.value);
    else await dropFromDirectory(this.env, who.tenant, who.ownerId, row.id);
    return true;
  }

  /** Take a deleted row out of the directory and revoke its tokens at the upstream. */
  private async forget(row: Row, who: OwnerRef, ring: KeyRing): Promise<void> {
    await dropFromDirectory(this.env, who.tenant, who.ownerId, row.id);
    const secrets = (await openSecret(
      ring,
      tokenBinding(who, row.upstream, row.id),
      row,
    )) as Secrets | null;
    if (secrets === null) return;
    await revokeTokens({ discovery: JSON.parse(row.discovery), ...secrets });
  }

  private row(upstream: string): Row | null {
    return (
      this.sql.exec<Row>("SELECT * FROM connection WHERE upstream = ?", upstream).toArray()[0] ??
      null
    );
  }

  private insert(row: Row): void {
    this.sql.exec(
      `INSERT INTO connection (upstream, id, resource, issuer, discovery, kid, sealed, scope,
         subject, issued_at, expires_at, created_at, refreshed_at, last_used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.upstream,
      row.id,
      row.resource,
      row.issuer,
      row.discovery,
      row.kid,
      row.sealed,
      row.scope,
      row.subject,
      row.issued_at,
      row.expires_at,
      row.created_at,
      row.refreshed_at,
      row.last_used_at,
    );
  }

  private owner(): OwnerRef | null {
    const row = this.sql
      .exec<{ tenant: string; owner_id: string; owner: string }>(
        "SELECT tenant, owner_id, owner FROM owner",
      )
      .toArray()[0];
    if (row === undefined) return null;
    const owner = JSON.parse(row.owner) as ConnectionOwner;
    return { tenant: row.tenant, ownerId: row.owner_id, owner };
  }

  private setOwner(who: OwnerRef): void {
    this.sql.exec(
      `INSERT INTO owner (one, tenant, owner_id, owner) VALUES (1, ?, ?, ?)
       ON CONFLICT (one) DO UPDATE SET owner = excluded.owner`,
      who.tenant,
      who.ownerId,
      JSON.stringify(who.owner),
    );
  }

  private viewOf(row: Row, who: OwnerRef): ConnectionView {
    return {
      id: row.id,
      upstream: row.upstream,
      resource: row.resource,
      issuer: row.issuer,
      scope: row.scope,
      subject: row.subject,
      owner: who.owner,
      owner_id: who.ownerId,
      created_at: row.created_at,
      last_used_at: row.last_used_at,
      refreshed_at: row.refreshed_at,
    };
  }
}
