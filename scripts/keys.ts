/**
 * Issue and revoke toolfence API keys. Only a key's SHA-256 is ever stored (in the API_KEYS
 * KV namespace); the key itself is printed once, on stdout, and nowhere else.
 *
 *   npm run keys -- issue --tenant acme --role agent [--tools a,b] [--label text] [--local|--remote]
 *   npm run keys -- revoke --id <sha256 hex> [--local|--remote]
 *   (--local takes --persist-to <dir>, for a `wrangler dev` whose state is kept there)
 *   npm run keys -- audit-keygen
 *   npm run keys -- redaction-keygen
 *
 * Without --local or --remote the wrangler command is printed, not run.
 */
import { execFileSync } from "node:child_process";
import { CONTRACTS } from "../contracts/index.ts";
import { newSigningKey, publicJwk } from "../src/core/audit-head.ts";
import { sha256Hex } from "../src/core/canonical.ts";
import { newApiKey, parseKeyRecord, recordName } from "../src/core/keys.ts";
import { parseCli, USAGE_EXIT } from "./lib/cli.ts";

const USAGE = `usage:
  npm run keys -- issue --tenant <tenant> --role agent|operator [--tools a,b] [--label text] [--local|--remote]
  npm run keys -- revoke --id <sha256 hex> [--local|--remote]
  npm run keys -- connection-keygen
  npm run keys -- audit-keygen
  npm run keys -- redaction-keygen`;

const OPTIONS = {
  tenant: { type: "string" },
  role: { type: "string" },
  tools: { type: "string" },
  label: { type: "string" },
  id: { type: "string" },
  local: { type: "boolean" },
  remote: { type: "boolean" },
  "persist-to": { type: "string" },
} as const;

/** A failure the operator can fix; printed without a stack. */
class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCli(
    { args: argv, options: OPTIONS, allowPositionals: true },
    USAGE,
  );
  if (values.local && values.remote) throw new UsageError("pick one of --local and --remote");
  const persist = values["persist-to"];
  if (persist !== undefined && !values.local)
    throw new UsageError("--persist-to goes with --local");
  const target = values.local
    ? ["--local", ...(persist === undefined ? [] : ["--persist-to", persist])]
    : values.remote
      ? ["--remote"]
      : null;
  const [command] = positionals;
  if (command === "issue") return issue(values, target);
  if (command === "revoke") return revoke(values.id, target);
  if (command === "connection-keygen") return connectionKeygen();
  if (command === "audit-keygen") return auditKeygen();
  if (command === "redaction-keygen") return redactionKeygen();
  throw new UsageError(USAGE);
}

async function issue(
  values: { tenant?: string; role?: string; tools?: string; label?: string },
  target: string[] | null,
): Promise<void> {
  const tools = values.tools?.split(",").map((t) => t.trim());
  const known = new Set(CONTRACTS.map((c) => c.name));
  const unknown = tools?.filter((t) => !known.has(t)) ?? [];
  if (unknown.length > 0) throw new UsageError(`no such tool: ${unknown.join(", ")}`);
  const parsed = parseKeyRecord({
    tenant: values.tenant,
    role: values.role,
    ...(tools === undefined ? {} : { tools }),
    label: values.label ?? `${values.tenant} ${values.role}`,
    created_at: new Date().toISOString(),
  });
  if (!parsed.ok) throw new UsageError(`${parsed.error}\n${USAGE}`);
  const key = newApiKey();
  const id = await sha256Hex(key);
  wrangler(
    ["kv", "key", "put", "--binding", "API_KEYS", recordName(id), JSON.stringify(parsed.value)],
    target,
  );
  console.error(
    `issued key ${id} for ${parsed.value.tenant} (${parsed.value.role}); it is shown once:`,
  );
  console.log(key);
}

function revoke(id: string | undefined, target: string[] | null): void {
  if (id === undefined || !/^[0-9a-f]{64}$/.test(id)) {
    throw new UsageError(`--id is the 64-hex id printed when the key was issued\n${USAGE}`);
  }
  wrangler(["kv", "key", "delete", "--binding", "API_KEYS", recordName(id)], target);
  // The fence's scheduled run deletes them (src/connections/revoked-keys.ts).
  console.error(
    "its upstream connections are deleted, and revoked at their upstreams, at the fence's next scheduled run (within 30 minutes); until then every call with the key is refused",
  );
}

/** Run wrangler with `target`, or print the command when there is none. */
function wrangler(args: string[], target: string[] | null): void {
  const command = `npx wrangler ${args.map(shellQuote).join(" ")}`;
  if (target === null) {
    console.error(`run (add --local or --remote):\n  ${command}`);
    return;
  }
  console.error(`$ ${command} ${target.map(shellQuote).join(" ")}`);
  // An argument list, never a shell string: the record is passed as it is.
  execFileSync("wrangler", [...args, ...target], { stdio: ["ignore", process.stderr, "inherit"] });
}

/** POSIX single quotes, so the printed command can be pasted as it is. */
function shellQuote(arg: string): string {
  return /^[\w:./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

try {
  await main(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  console.error((e as Error).message);
  process.exitCode = USAGE_EXIT;
}

/**
 * A new Ed25519 pair for signing audit heads: the private JWK goes into the worker's secret,
 * the public one is published at /.well-known/toolfence-audit-keys. When rotating, add the old
 * public key to AUDIT_RETIRED_KEYS so heads it signed still verify.
 */
async function auditKeygen(): Promise<void> {
  const key = await newSigningKey();
  console.log(`private (secret) JWK, kid ${key.kid}:\n${JSON.stringify(key)}\n`);
  console.log(`public JWK:\n${JSON.stringify(publicJwk(key))}\n`);
  console.log("put it on the worker with:");
  console.log(`  echo '${JSON.stringify(key)}' | npx wrangler secret put AUDIT_SIGNING_KEY`);
}

/**
 * A new key for the key ring upstream connections are sealed under (CONNECTION_KEYS): 32
 * random bytes as base64url, with a kid of the day. To rotate, put it first and keep the old
 * pairs after it (src/core/key-ring.ts, docs/security.md).
 */
function connectionKeygen(): void {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const kid = `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
  const pair = `${kid}:${Buffer.from(bytes).toString("base64url")}`;
  console.log(`connection key (secret), kid ${kid}:\n${pair}\n`);
  console.log("put it on the worker with (before the old pairs, comma-separated, when rotating):");
  console.log(`  echo '${pair}' | npx wrangler secret put CONNECTION_KEYS`);
}

/** A new key for the audit's redaction digests: 32 random bytes, hex. */
function redactionKeygen(): void {
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  console.log(`redaction key (secret):\n${key}\n`);
  console.log("put it on the worker with:");
  console.log(`  echo '${key}' | npx wrangler secret put AUDIT_REDACTION_KEY`);
  console.log(
    "a new key changes the digest of every value from then on; entries already written keep theirs",
  );
}
