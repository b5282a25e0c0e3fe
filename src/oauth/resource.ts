/**
 * `/mcp`, the connector URL: the library has checked the bearer (unexpired, not revoked,
 * bound to this fence's `/mcp`), and hands over the grant's props. They become the same
 * principal and run the run-scoped MCP route uses: the grant's tenant, its tools as the
 * caller's subset (so `tools/list` shows only them), and the grant's current run, whose
 * limits are the consent's. The token itself goes no further: upstreams are called with the
 * fence's own credentials (MCP forbids token passthrough).
 *
 * The grant is as alive as whoever approved it (approver.ts): a token of a grant whose key was
 * revoked, or whose person no longer operates the tenant, is refused and the grant revoked.
 *
 * A host keeps one URL and one grant for weeks, so a grant owns a series of runs
 * (`oauth.<grant>.<n>`). The current run rolls over to a new one, opened with the grant's
 * limits, once it is past its deadline; a run that was halted or whose budget is spent never
 * rolls over by itself: an operator acts (revokes or tightens the grant, which leaves it so),
 * or the person consents again, which makes a new grant.
 */
import { insufficientScope, type OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";
import type { MiddlewareHandler } from "hono";
import { viaGrant } from "../core/principal.ts";
import { refuse } from "../core/reasons.ts";
import type { AppContext, AppEnv } from "../http/context.ts";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { problem } from "../http/problem.ts";
import { ledgerOf } from "../ledger/address.ts";
import type { RunRef, RunView } from "../ledger/protocol.ts";
import { approverAlive } from "./approver.ts";
import {
  type GrantProps,
  type GrantRecord,
  overrideOf,
  readRecord,
  runIdOf,
  writeRecord,
} from "./grant.ts";
import { TOOLS_SCOPE } from "./provider.ts";

/** The grant and token of a request the library let through, or null. */
function grantOf(c: AppContext): { props: GrantProps; auth: OAuthResourceAuth } | null {
  const ctx = c.executionCtx as ExecutionContext & { props?: unknown; auth?: OAuthResourceAuth };
  const props = ctx.props as GrantProps | undefined;
  if (props === undefined || typeof props?.grant !== "string" || ctx.auth === undefined) {
    return null;
  }
  return { props, auth: ctx.auth };
}

/** Each request's grant record, read once for its principal and its run. */
const records = new WeakMap<Request, Promise<GrantRecord | null>>();

function recordOf(c: AppContext, props: GrantProps): Promise<GrantRecord | null> {
  let record = records.get(c.req.raw);
  if (record === undefined) {
    record = readRecord(c.env, props.tenant, props.grant);
    records.set(c.req.raw, record);
  }
  return record;
}

/**
 * Set the grant's principal, or refuse: 401 when the request did not come through the OAuth
 * provider (OAuth is not served on this origin), 403 `insufficient_scope` naming the scope to
 * step up to when the token lacks it (RFC 6750 §3.1).
 */
export function grantPrincipal(): MiddlewareHandler<AppEnv> {
  return async function grantPrincipal(c, next) {
    const grant = grantOf(c);
    if (grant === null) {
      const detail = "This fence serves /mcp to OAuth clients only where PUBLIC_URL names it.";
      return problem(refuse("unauthenticated", detail), {}, { "WWW-Authenticate": "Bearer" });
    }
    if (!grant.auth.scope.includes(TOOLS_SCOPE))
      return insufficientScope(grant.auth, [TOOLS_SCOPE]);
    const { props } = grant;
    const local = isLocalDevelopment(c.req.raw.headers, c.req.url);
    const [record, alive] = await Promise.all([
      recordOf(c, props),
      approverAlive(c.env, c.get("fence"), props, local),
    ]);
    if (!alive) {
      await revokeGrantOf(c.env, grant.auth);
      const detail = "Whoever approved this connection no longer operates this fence's tenant.";
      return problem(
        refuse("unauthenticated", detail),
        {},
        {
          "WWW-Authenticate": 'Bearer error="invalid_token"',
        },
      );
    }
    const limits = record?.limits ?? props.limits;
    c.set("local", local);
    const consented = props.principal ?? { kind: "key", key_id: null, label: props.subject };
    c.set("principal", {
      tenant: props.tenant,
      role: "agent",
      tools: limits.allowed_tools,
      keyId: `grant:${props.grant}`,
      audited: viaGrant(consented, props.client_id, props.grant),
    });
    await next();
  };
}

/**
 * Revoke the grant a token belongs to. The library's tokens are `userId:grantId:secret`, read
 * from the right (its user ids may hold `:`); the library has already matched this one.
 */
async function revokeGrantOf(env: Env, auth: OAuthResourceAuth): Promise<void> {
  const parts = auth.token.split(":");
  const grantId = parts.at(-2);
  if (env.OAUTH_PROVIDER !== undefined && grantId !== undefined && auth.userId !== undefined) {
    await env.OAUTH_PROVIDER.revokeGrant(grantId, auth.userId);
  }
}

/** Whether a counter with a limit above zero is used up. */
function spent(view: RunView): boolean {
  const { mutations, paid_calls } = view.budget;
  return [mutations, paid_calls].some((k) => k.limit > 0 && k.left === 0);
}

/** The grant's current run, rolled over when it is past its deadline (and not halted or spent). */
export async function grantRun(c: AppContext): Promise<RunRef> {
  const grant = grantOf(c);
  if (grant === null) throw new Error("grantRun without a grant");
  const { props } = grant;
  const local = c.get("local");
  const refOf = (n: number): RunRef => ({
    tenant: props.tenant,
    runId: runIdOf(props.grant, n),
    by: `grant:${props.grant}`,
    principal: c.get("principal").audited,
    local,
  });
  const record = await recordOf(c, props);
  if (record === null) return refOf(0);
  const now = Date.now();
  const current = refOf(record.run);
  if (now < record.run_opened_at + record.limits.deadline_ms) return current;
  const view = await ledgerOf(c.env, current).status();
  if (view !== null && (view.status === "halted" || spent(view))) return current;
  const next = refOf(record.run + 1);
  const opened = await ledgerOf(c.env, next).open(next, overrideOf(record.limits), false);
  if (opened.kind === "refuse") return current;
  await writeRecord(c.env, { ...record, run: record.run + 1, run_opened_at: now });
  return next;
}
