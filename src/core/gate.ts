/**
 * The stateless gate every call passes first: parse once, then the tool, the caller's and
 * the policy's tool lists, the contract, unsafe path arguments and the mutation key.
 */
import { type BodyLimits, type CallForm, DERIVED_KEY_PREFIX, readCall } from "./body.ts";
import { fingerprint } from "./canonical.ts";
import type { ToolContract } from "./contract.ts";
import { fromOpenAiStrictArgs } from "./openai-args.ts";
import { pathArgIssues } from "./path-args.ts";
import type { Fence } from "./policy.ts";
import { type ContractIssue, type Refusal, refuse } from "./reasons.ts";
import { type Digest, redactArgs } from "./redact.ts";
import { err, ok, type Result } from "./result.ts";
import { validateArgs } from "./validate.ts";

/** A proposed call as it arrived over HTTP. */
export interface RawCall {
  /** Content-Type header, or null. */
  contentType: string | null;
  /** The body text. */
  text: string;
  /** `Idempotency-Key` header, or null. */
  headerKey: string | null;
  /** Tools this caller may use, or null for every tool the policy allows. */
  callerTools: readonly string[] | null;
  /**
   * The form to record when an edge made the text from another protocol (`mcp`). A mutation
   * of form `mcp` sent without a key gets one derived from its fingerprint: most MCP clients
   * send none, and an identical mutation repeated in the run must replay, not apply twice.
   */
  form?: "mcp" | null;
}

/** A call that passed every stateless check: only its validated form goes on. */
export interface GatedCall {
  /** The tool's contract. */
  contract: ToolContract;
  /** The body form it arrived in. */
  form: CallForm;
  /** The validated output of the input schema: the only thing a tool ever receives. */
  args: unknown;
  /** Idempotency key, or null. */
  key: string | null;
  /**
   * SHA-256 of the canonical `{ tool, args }` with each sensitive argument in its redacted
   * form (a keyed digest), so the fingerprint cannot confirm a guessed value.
   */
  fingerprint: string;
}

/** Why a call was stopped at the gate, with what could be read of it. */
export interface GateFailure {
  /** The refusal. */
  refusal: Refusal;
  /** Tool name, if the body could be read. */
  tool: string | null;
  /** Body form, if the body could be read. */
  form: CallForm | null;
  /** Idempotency key, if it could be read. */
  key: string | null;
  /** The arguments as read, before validation, when the body could be read as a call. */
  args?: unknown;
}

/** Arguments that passed a tool's contract, as a call or an approver's edit goes on. */
export interface CheckedArgs {
  /** The validated output of the input schema. */
  args: unknown;
  /** The same, each sensitive argument in its redacted form (a keyed digest). */
  redacted: unknown;
  /** SHA-256 of the canonical `{ tool, args }`, the arguments in their redacted form. */
  fingerprint: string;
}

/** Why arguments fail a tool's contract: its input schema, or unsafe URL path arguments. */
export type ArgsFailure =
  | { kind: "schema"; refusal: Refusal }
  | { kind: "unsafe_path"; issues: ContractIssue[] };

/**
 * The contract's checks of a call's arguments, in the gate's order: the input schema (no
 * coercion, no unknown keys), safe URL path arguments, then the redacted form and the
 * fingerprint. Each caller words its own refusal.
 */
export async function checkArgs(
  contract: ToolContract,
  args: unknown,
  digest: Digest,
): Promise<Result<CheckedArgs, ArgsFailure>> {
  const valid = validateArgs(contract, args);
  if (!valid.ok) return err({ kind: "schema", refusal: valid.error });
  const unsafe = pathArgIssues(contract, valid.value);
  if (unsafe.length > 0) return err({ kind: "unsafe_path", issues: unsafe });
  const redacted = redactArgs(contract, valid.value, digest);
  const print = await fingerprint(contract.name, redacted);
  return ok({ args: valid.value, redacted, fingerprint: print });
}

/**
 * How a call kept in the audit is read again by the gate: a key the fence derived is not sent
 * back (no caller may send one), but derived again from the call, as the first time.
 */
export function keyAsKept(key: string | null): Pick<RawCall, "headerKey" | "form"> {
  return key?.startsWith(DERIVED_KEY_PREFIX) === true
    ? { headerKey: null, form: "mcp" }
    : { headerKey: key, form: null };
}

/**
 * The stateless half of the decision table: parse once, then reject twice (unknown or
 * disallowed tool, broken contract, mutation without a key). Pure: no storage, no I/O; the
 * redaction digest the fingerprint is keyed with is passed in.
 */
export async function gate(
  fence: Fence,
  raw: RawCall,
  limits: BodyLimits,
  digest: Digest,
): Promise<Result<GatedCall, GateFailure>> {
  const read = readCall(raw.contentType, raw.text, raw.headerKey, limits);
  if (!read.ok) return err({ refusal: read.error, tool: null, form: null, key: raw.headerKey });
  const { tool, idempotencyKey: sent } = read.value;
  const form = raw.form ?? read.value.form;
  const fail = (refusal: Refusal) => err({ refusal, tool, form, key: sent, args: read.value.args });
  const contract = fence.tools.get(tool);
  if (contract === undefined) {
    // A name no contract has is the caller's text: the refusal and the audit keep it bounded.
    const named = boundedName(tool);
    const refusal = refuse(
      "unknown_tool",
      `No tool is named ${JSON.stringify(named)}; see GET /v1/tools.`,
    );
    return err({ refusal, tool: named, form, key: sent, args: read.value.args });
  }
  const allowed =
    fence.policy.allowed_tools.includes(tool) && (raw.callerTools?.includes(tool) ?? true);
  if (!allowed) return fail(refuse("tool_not_allowed", `${tool} is not allowed for this caller.`));
  const args =
    form === "openai" ? fromOpenAiStrictArgs(contract, read.value.args as never) : read.value.args;
  const checked = await checkArgs(contract, args, digest);
  if (!checked.ok) {
    const failure = checked.error;
    if (failure.kind === "schema") return fail(failure.refusal);
    const names = failure.issues.map((i) => i.path).join(", ");
    return fail(
      refuse("contract_violation", `Unsafe URL path argument of ${tool}: ${names}`, failure.issues),
    );
  }
  const { fingerprint: print } = checked.value;
  // Derived from the validated, redacted call: a default filled in does not change it, and it
  // confirms no sensitive value.
  const derive = contract.effect === "mutate" && form === "mcp";
  const key = sent ?? (derive ? `${DERIVED_KEY_PREFIX}${print}` : null);
  if (contract.effect === "mutate" && key === null) {
    return fail(
      refuse(
        "idempotency_key_missing",
        `${tool} is a mutation: send one idempotency key per intent (Idempotency-Key header or idempotency_key).`,
      ),
    );
  }
  return ok({ contract, form, args: checked.value.args, key, fingerprint: print });
}

/** Most UTF-16 units of a name no contract has that a refusal keeps: MCP's longest tool name. */
export const MAX_UNKNOWN_NAME = 128;

/** `name` cut to MAX_UNKNOWN_NAME units (never inside a surrogate pair), marked when cut. */
export function boundedName(name: string): string {
  if (name.length <= MAX_UNKNOWN_NAME) return name;
  const end = /[\uD800-\uDBFF]/.test(name.charAt(MAX_UNKNOWN_NAME - 1))
    ? MAX_UNKNOWN_NAME - 1
    : MAX_UNKNOWN_NAME;
  return `${name.slice(0, end)}…`;
}
