/**
 * The running policy's version (SHA-256 of its RFC 8785 form), which an approval's grant is
 * bound to: computed once per fence and isolate.
 */
import { policyVersionOf } from "../../core/approval.ts";
import type { Fence } from "../../core/policy.ts";

/** The string is kept, not the promise, so no request awaits another's I/O. */
const versions = new WeakMap<Fence, string>();

/** The version of `fence`'s policy. */
export async function policyVersion(fence: Fence): Promise<string> {
  const known = versions.get(fence);
  if (known !== undefined) return known;
  const version = await policyVersionOf(fence.policy);
  versions.set(fence, version);
  return version;
}
