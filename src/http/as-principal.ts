/**
 * The pipeline's step for a tool whose upstream is called as the principal
 * (src/connections/for-call.ts): the caller's connection gives the token, and the run's entries
 * for the call name the upstream identity it used; without one, the call is refused before
 * anything is charged, with the connect link in its answer.
 */

import { fenceOrigin } from "../connections/client-document.ts";
import { type Bearer, principalCall } from "../connections/for-call.ts";
import type { GatedCall, GateFailure } from "../core/gate.ts";
import { consoleSecret } from "../core/keys.ts";
import { asUpstream } from "../core/principal.ts";
import type { PrincipalTool } from "../core/principal-auth.ts";
import type { RunRef } from "../ledger/protocol.ts";
import type { AppContext } from "./context.ts";

/** A call as the principal, resolved: the run as its entries name the caller, and the token. */
export type AsPrincipal =
  | { ok: true; ref: RunRef; bearer: Bearer }
  | { ok: false; failure: GateFailure; extra: Record<string, unknown> };

/** Resolve `call`, whose contract is called as the principal, for the caller of `ref`. */
export async function asPrincipal(
  c: AppContext,
  ref: RunRef,
  call: GatedCall & { contract: PrincipalTool },
): Promise<AsPrincipal> {
  const resolved = await principalCall(c.env, call.contract, {
    tenant: ref.tenant,
    principal: ref.principal,
    origin: fenceOrigin(c.env, c.req.url, c.get("local")),
    // Checked by configured.ts before a call gets here.
    secret: consoleSecret(c.env) ?? "",
    defer: (work) => c.executionCtx.waitUntil(work),
  });
  if (!resolved.ok) {
    const { contract, form, key } = call;
    const failure = { refusal: resolved.refusal, tool: contract.name, form, key };
    const extra = resolved.connectUrl === undefined ? {} : { connect_url: resolved.connectUrl };
    return { ok: false, failure, extra };
  }
  const principal = ref.principal;
  // ownerOf accepted it, so it is a key or a person.
  if (principal === undefined || principal.kind === "fence") throw new Error("no caller");
  const named = { ...ref, principal: asUpstream(principal, resolved.identity) };
  return { ok: true, ref: named, bearer: resolved.bearer };
}
