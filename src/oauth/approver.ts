/**
 * A grant is as alive as the principal that approved it. An operator key that is revoked (or
 * no longer an operator key of the grant's tenant), a person the policy no longer makes an
 * operator of it, and the development key away from local development end the grants they
 * approved: their tokens are refused at their next use at `/mcp` and at their next refresh,
 * and the grant is revoked.
 */
import { roleAllows } from "../core/keys.ts";
import { admissionOf, stillOperates } from "../core/people.ts";
import type { Fence } from "../core/policy.ts";
import { digestPrincipal } from "../http/auth.ts";
import type { GrantProps } from "./grant.ts";

const KEY_DIGEST = /^[0-9a-f]{64}$/;

/** Whether the key `keyId` (null: the development key) is still an operator key of `tenant`. */
async function keyApproves(
  env: Env,
  keyId: string | null,
  tenant: string,
  local: boolean,
): Promise<boolean> {
  const found = await digestPrincipal(env, keyId, local);
  return found.ok && found.value.tenant === tenant && roleAllows(found.value.role, "operator");
}

/**
 * Whether the principal that approved the grant `props` still could, for a request that is
 * (`local`) or is not under local development.
 */
export async function approverAlive(
  env: Env,
  fence: Fence,
  props: GrantProps,
  local: boolean,
): Promise<boolean> {
  const approver = props.principal;
  if (approver?.kind === "key") return keyApproves(env, approver.key_id, props.tenant, local);
  if (approver?.kind === "person") {
    const operators = fence.policy.operators;
    // A grant approved before admissions were kept is asked as if the person signed in now.
    const admission = props.admission ?? admissionOf(operators, approver, props.tenant);
    return stillOperates(operators, approver, admission);
  }
  // A grant that names only its subject: a key's digest, or `development`.
  if (props.subject === "development") return keyApproves(env, null, props.tenant, local);
  return KEY_DIGEST.test(props.subject) && keyApproves(env, props.subject, props.tenant, local);
}
