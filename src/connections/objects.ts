/** Reaching a principal's PrincipalConnections object, named `<tenant>/<owner id>`. */
import type { FlowSnapshot } from "./protocol.ts";

/** The connections object of one owner of one tenant. */
export function connectionsOf(env: Env, tenant: string, ownerId: string) {
  return env.CONNECTIONS.getByName(`${tenant}/${ownerId}`);
}

/**
 * Take the flow of `state` from its owner's object (PrincipalConnections.finish): the SDK's
 * metadata types hold `unknown` members, which the RPC stub's types cannot carry, so the
 * snapshot is typed again here, where it crosses.
 */
export async function takeFlow(
  objects: ReturnType<typeof connectionsOf>,
  state: string,
): Promise<FlowSnapshot | null> {
  return (await objects.finish(state)) as FlowSnapshot | null;
}
