/**
 * What a tool contract is: its name, version, effect, schemas, limits, example and upstream.
 */
import type * as v from "valibot";
import type { ResultRules } from "./guardrails/rules.ts";

/** Whether a tool only reads or changes the world. */
export type Effect = "read" | "mutate";

/** Any valibot schema the fence can run synchronously. */
export type AnySchema = v.GenericSchema<unknown, unknown>;

/** HTTP methods an upstream may be called with. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Where a tool runs. `{name}` in a path or URL is replaced by the URI-encoded argument
 * of that name; the validated arguments are the JSON body (or the query for GET).
 */
export type Upstream =
  /** A Workers service binding (no public hop). */
  | ({ kind: "service"; binding: string; method: HttpMethod; path: string } & KeyHonoured)
  /** An HTTPS endpoint; `auth` names the Worker secret whose value is sent in `header`. */
  | ({ kind: "http"; method: HttpMethod; url: string; auth?: SecretAuth } & KeyHonoured)
  /** Answered by the fence itself, for tools with no side effect at all. */
  | { kind: "inline"; answer: (args: unknown) => unknown }
  /** A tool of an MCP server, called with the MCP client; its schema pinned at import. */
  | McpUpstream;

/** Whether an upstream the fence sends calls to deduplicates them by their idempotency key. */
export interface KeyHonoured {
  /**
   * True when the upstream honours the key the fence sends with a mutation (`Idempotency-Key`;
   * for an MCP server `_meta["io.toolfence/idempotency-key"]`): a repeated key gets the first
   * call's answer and no second effect. Only then is a mutation whose worker died mid-call
   * sent again under its key; otherwise it is settled as `upstream_outcome_unknown`. False
   * when unset.
   */
  idempotent?: boolean;
}

/**
 * Where an MCP server is reached: a URL taken from a Worker variable at call time (so no
 * address is compiled in), or a service binding and path (no public hop).
 */
export type McpEndpoint = { urlVar: string } | { binding: string; path: string };

/** The fence's own credentials: the Worker secret whose value is sent in `header`. */
export interface SecretAuth {
  /** The header the value is sent in, e.g. `Authorization`. */
  header: string;
  /** The Worker secret holding the value (`wrangler secret put`). */
  secret: string;
  /** A scheme written before the value, e.g. `Bearer`. */
  scheme?: string;
}

/**
 * The upstream is called as the principal who made the call: the fence is an OAuth client of
 * the MCP server (the MCP authorization spec) and sends the principal's own access token, from
 * their connection (src/connections/). A call without a live connection is refused with a URL
 * where the person connects (`upstream_authorization_required`).
 */
export interface PrincipalAuth {
  /** OAuth 2.1, as the MCP authorization spec has it. */
  kind: "oauth";
  /** Whose tokens: the caller's own. */
  as: "principal";
  /** Scopes to ask for; without them, those the server's metadata lists (RFC 9728). */
  scopes?: readonly string[];
}

/** An MCP server's tool, as `npm run contracts -- import` pinned it. */
export interface McpUpstream extends KeyHonoured {
  /** Discriminant of the upstream kind. */
  kind: "mcp";
  /** Where the server is reached. */
  endpoint: McpEndpoint;
  /** The tool's name on the server, which may differ from the fence's name for it. */
  tool: string;
  /** The fence's secret sent in a header, or the principal's own OAuth tokens. */
  auth?: SecretAuth | PrincipalAuth;
  /** What the import saw, for `npm run contracts -- drift`. */
  pinned: McpPin;
}

/** The upstream's tool definition at import time. */
export interface McpPin {
  /** The server URL the tool was imported from. */
  source: string;
  /** SHA-256 (hex) of the RFC 8785 form of `schema`. */
  sha256: string;
  /** The upstream's description, input schema and output schema, as listed. */
  schema: unknown;
}

/** A runtime-owned tool contract: the agent can never create one or pick a version. */
export interface ToolContract {
  /** The name the agent calls the tool by; matched exactly, never case-folded. */
  name: string;
  /** Bumping it invalidates every cached result of the tool. */
  version: string;
  /** What the tool does, published to the model in the catalogue. */
  description: string;
  /** `mutate` tools need an idempotency key and count against `max_mutations`. */
  effect: Effect;
  /** Whether a call that reaches the tool counts against `max_paid_calls`. */
  paid: boolean;
  /** Strict object schema of the arguments. */
  input: AnySchema;
  /** Schema every answer of the tool must pass before it is returned or cached. */
  output: AnySchema;
  /** Wall-clock limit of one execution, before the policy's cap applies. */
  timeoutMs: number;
  /** Seconds a result may be served from the cache; 0 means never cached (reads only). */
  cacheTtlSeconds: number;
  /**
   * The most bytes of one answer the fence reads from this tool, when the tool's answers are
   * known to be smaller than the policy's `upstream_answer_max_bytes`, which caps it.
   */
  maxAnswerBytes?: number;
  /** Cached results shared by all tenants (only for tenant-independent data). */
  sharedCache: boolean;
  /** Where and how the tool is executed. */
  upstream: Upstream;
  /**
   * Whether a mutation may destroy or overwrite (MCP's `destructiveHint`); true when unset.
   * A mutation that only adds, such as a comment, says false.
   */
  destructive?: boolean;
  /**
   * Top-level arguments whose values the fence never keeps: the audit, its export and archive,
   * approvals and escalations hold `hmac-sha256:<hex>` in their place (docs/audit.md,
   * "Redaction"). The tool and the cache key still get the real value.
   */
  sensitive?: readonly string[];
  /**
   * One valid call and its answer: shows a reviewer what the tool takes and gives, and the
   * tests check it against both schemas. `policy check` notes a contract without one.
   */
  example?: ToolExample;
  /**
   * What the result rules do with this tool's answers, over the policy's (docs/result-rules.md):
   * e.g. `{ email: "redact" }`, or `{ secrets: "allow" }` for a tool whose job is to return one.
   */
  results?: ResultRules;
}

/** A valid call of a tool and a valid answer to it. */
export interface ToolExample {
  /** Arguments the input schema accepts. */
  args: unknown;
  /** A result the output schema accepts. */
  result: unknown;
}
