/**
 * Whether a tool's upstream is configured in this deployment: the variable holding an MCP
 * server's URL is set, the service binding is bound, the secret sent as credentials is put.
 * A tool whose upstream is not could never succeed, so it is not offered (`GET /v1/tools`,
 * `tools/list`) and a call to it is refused before anything is charged, never as a retry.
 */
import type { ToolContract } from "../core/contract.ts";
import type { GatedCall, GateFailure } from "../core/gate.ts";
import { parseKeyRing } from "../core/key-ring.ts";
import { consoleSecret } from "../core/keys.ts";
import { refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";

/** A tool left out of the catalogue, and what its upstream lacks. */
export interface Unavailable {
  /** The tool's name. */
  name: string;
  /** What is missing, e.g. `MCP_EVERYTHING_URL is not set`. */
  reason: string;
}

/** What the tool's upstream lacks in `env`, or null when it can be called. */
export function missingConfig(contract: ToolContract, env: Env): string | null {
  const vars = env as unknown as Record<string, unknown>;
  const upstream = contract.upstream;
  switch (upstream.kind) {
    case "inline":
      return null;
    case "service":
      return bound(vars, upstream.binding);
    case "http":
      return secretPut(vars, upstream.auth);
    case "mcp": {
      const { endpoint, auth } = upstream;
      const reached =
        "urlVar" in endpoint ? set(vars, endpoint.urlVar) : bound(vars, endpoint.binding);
      if (reached !== null) return reached;
      return auth !== undefined && "kind" in auth ? connectionsReady(env) : secretPut(vars, auth);
    }
  }
}

/** `call` as the gate passed it, or its refusal when its tool's upstream is not configured. */
export function configured(call: GatedCall, env: Env): Result<GatedCall, GateFailure> {
  const missing = missingConfig(call.contract, env);
  if (missing === null) return ok(call);
  const { contract, form, key } = call;
  const detail = `${contract.name} cannot be called in this deployment: ${missing}. It is not in the catalogue; do not retry it.`;
  const refusal = refuse("upstream_not_configured", detail);
  return err({ refusal, tool: contract.name, form, key });
}

/** The tools that can be called here, and those left out with why. */
export function offeredTools(
  tools: readonly ToolContract[],
  env: Env,
): { tools: ToolContract[]; unavailable: Unavailable[] } {
  const offered: ToolContract[] = [];
  const unavailable: Unavailable[] = [];
  for (const tool of tools) {
    const reason = missingConfig(tool, env);
    if (reason === null) offered.push(tool);
    else unavailable.push({ name: tool.name, reason });
  }
  return { tools: offered, unavailable };
}

function set(vars: Record<string, unknown>, name: string): string | null {
  const value = vars[name];
  return typeof value === "string" && value !== "" ? null : `${name} is not set`;
}

function bound(vars: Record<string, unknown>, name: string): string | null {
  const binding = vars[name] as { fetch?: unknown } | undefined;
  return typeof binding?.fetch === "function" ? null : `the binding ${name} is not bound`;
}

/**
 * What a deployment lacks to call an upstream as the principal: the connections' object, the
 * key ring their tokens are encrypted under, and the console secret that seals connect links.
 */
function connectionsReady(env: Env): string | null {
  const vars = env as unknown as Record<string, unknown>;
  const objects = vars.CONNECTIONS as { getByName?: unknown } | undefined;
  if (typeof objects?.getByName !== "function") return "the binding CONNECTIONS is not bound";
  if (consoleSecret(env) === null) return "CONSOLE_SECRET is not set (32 characters or more)";
  const ring = parseKeyRing(env.CONNECTION_KEYS);
  return ring.ok ? null : ring.error;
}

function secretPut(vars: Record<string, unknown>, auth: { secret: string } | undefined) {
  return auth === undefined ? null : set(vars, auth.secret);
}
