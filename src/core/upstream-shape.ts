/**
 * The shape of a contract's `upstream`, checked when the fence loads: each kind's members and
 * nothing else, so a misspelt member (`idempotnt: true`) is refused, never read as unset.
 * The type (contract.ts) holds for a contract written in TypeScript; a contract built or
 * spread at run time is checked here.
 */
import * as v from "valibot";

const Text = v.pipe(v.string(), v.minLength(1));
const Method = v.picklist(["GET", "POST", "PUT", "PATCH", "DELETE"]);
const Auth = v.strictObject({ header: Text, secret: Text, scheme: v.optional(Text) });
const Idempotent = v.optional(v.boolean());
/** An MCP server's credentials: the fence's secret, or (with a `kind`) the principal's own, checked by principal-auth.ts. */
const McpAuth = v.union([Auth, v.looseObject({ kind: v.string() })]);

const UpstreamSchema = v.variant("kind", [
  v.strictObject({
    kind: v.literal("service"),
    binding: Text,
    method: Method,
    path: Text,
    idempotent: Idempotent,
  }),
  v.strictObject({
    kind: v.literal("http"),
    method: Method,
    url: Text,
    auth: v.optional(Auth),
    idempotent: Idempotent,
  }),
  // The fence answers it itself: no key to honour, no call ever sent again (no `idempotent`).
  v.strictObject({ kind: v.literal("inline"), answer: v.function() }),
  v.strictObject({
    kind: v.literal("mcp"),
    endpoint: v.union([
      v.strictObject({ urlVar: Text }),
      v.strictObject({ binding: Text, path: Text }),
    ]),
    tool: Text,
    auth: v.optional(McpAuth),
    // The pin file as imported (it also names the tool and any findings): drift reads it.
    pinned: v.looseObject({ source: v.string(), sha256: v.string(), schema: v.unknown() }),
    idempotent: Idempotent,
  }),
]);

/** What is wrong with `upstream`, each as `<path>.<member>: <why>`; empty when nothing is. */
export function upstreamProblems(upstream: unknown, path: string): string[] {
  const checked = v.safeParse(UpstreamSchema, upstream, { abortEarly: false });
  if (checked.success) return [];
  return checked.issues.map((i) => {
    const at = v.getDotPath(i);
    return `${path}${at === null ? "" : `.${at}`}: ${i.message}`;
  });
}
