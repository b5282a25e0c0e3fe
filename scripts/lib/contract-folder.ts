/**
 * What a tool added to `contracts/` still needs outside its own file, for `policy check`:
 * a contract no one listed in `CONTRACTS` does not exist for the fence, a service binding
 * not declared in wrangler.toml fails at call time, and a secret must be put before deploy.
 */
import type { ToolContract } from "../../src/core/contract.ts";

/** One module of `contracts/` and the values it exports. */
export interface ContractModule {
  /** Repository path, e.g. `contracts/get_ticket.ts`. */
  path: string;
  /** Its exports by name. */
  exports: Record<string, unknown>;
}

/** What the folder check found: `errors` fail the check, `notes` are printed. */
export interface FolderReport {
  /** Missing pieces that make a contract unusable or wrong. */
  errors: string[];
  /** Things a reviewer should know, which do not fail the check. */
  notes: string[];
}

function isContract(value: unknown): value is ToolContract {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Partial<ToolContract>;
  return (
    typeof c.name === "string" &&
    typeof c.version === "string" &&
    (c.effect === "read" || c.effect === "mutate") &&
    typeof c.upstream === "object"
  );
}

/** Check the contracts folder against the listed contracts, the policy and wrangler.toml. */
export function checkContractFolder(input: {
  modules: readonly ContractModule[];
  listed: readonly ToolContract[];
  allowed: readonly string[];
  bindings: ReadonlySet<string>;
}): FolderReport {
  const errors: string[] = [];
  const notes: string[] = [];
  const listed = new Set(input.listed.map((c) => c.name));
  for (const m of input.modules) {
    for (const value of Object.values(m.exports)) {
      if (isContract(value) && !listed.has(value.name)) {
        errors.push(
          `${m.path} defines the tool "${value.name}", but contracts/index.ts does not list it in CONTRACTS: the fence does not know it`,
        );
      }
    }
  }
  for (const c of input.listed) {
    const up = c.upstream;
    if (!input.allowed.includes(c.name)) {
      notes.push(`${c.name} is not in policy allowed_tools: no run may call it`);
    }
    if (c.example === undefined) {
      notes.push(`${c.name} has no example: add one valid { args, result }, which the tests check`);
    }
    if (up.kind === "service" && !input.bindings.has(up.binding)) {
      errors.push(
        `${c.name} calls the service binding ${up.binding}, which wrangler.toml does not declare ([[services]] binding = "${up.binding}")`,
      );
    }
    if (up.kind === "http" && up.auth !== undefined) {
      notes.push(
        `${c.name} sends the secret ${up.auth.secret}: set it with \`wrangler secret put ${up.auth.secret}\` (and in .dev.vars for npm run dev)`,
      );
    }
  }
  return { errors, notes };
}

/** Service, KV and other bindings a wrangler.toml declares by `binding = "…"`. */
export function declaredBindings(toml: string): Set<string> {
  return new Set([...toml.matchAll(/^\s*binding\s*=\s*"([^"]+)"/gm)].map((m) => m[1] ?? ""));
}
