/**
 * Contract validation of arguments and answers, with issues a model can re-plan from, each
 * text bounded.
 */
import * as v from "valibot";
import type { AnySchema, ToolContract } from "./contract.ts";
import { type ContractIssue, type Reason, type Refusal, refuse } from "./reasons.ts";
import { err, ok, type Result } from "./result.ts";

/** Longest `received` text echoed back; a huge string must not bloat the refusal. */
const MAX_RECEIVED = 120;

/** What an issue says it received when the argument is one its contract marks sensitive. */
export const SENSITIVE_RECEIVED = "(sensitive, not shown)";

/**
 * Most issues listed in one refusal, and the longest path or message. An upstream's answer
 * is as untrusted as an agent's call: its key names and values reach the refusal, the audit
 * and the stored answer of a key, so every piece of it is bounded (about 5 KB in all).
 */
const MAX_ISSUES = 10;
const MAX_PATH = 120;
const MAX_MESSAGE = 240;

/**
 * Checks proposed arguments against the tool's input contract. On success the value is
 * valibot's output (defaults applied, unknown keys impossible): only that reaches the tool.
 */
export function validateArgs(contract: ToolContract, args: unknown): Result<unknown, Refusal> {
  return check(contract, contract.input, args, "arguments", "contract_violation");
}

/**
 * Checks a tool's answer against its output contract before it is returned or cached. An
 * answer the contract would hand on with fewer items in a list than the tool sent is refused
 * too: a loose tuple (`v.tuple`) drops the items past its own, and the rest of an MCP result's
 * `content` would reach the agent as if it were the whole answer.
 */
export function validateOutput(contract: ToolContract, value: unknown): Result<unknown, Refusal> {
  const checked = check(contract, contract.output, value, "output", "output_contract_violation");
  if (!checked.ok) return checked;
  const dropped = droppedItems(value, checked.value, []);
  if (dropped.length === 0) return checked;
  const issues = dropped.slice(0, MAX_ISSUES);
  return err(refuse("output_contract_violation", summary(contract, "output", dropped), issues));
}

/** Every list of `sent` that `kept`, its parsed form, holds fewer items of, with its path. */
function droppedItems(sent: unknown, kept: unknown, path: string[]): ContractIssue[] {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    const inner = kept.flatMap((item, i) => droppedItems(sent[i], item, [...path, String(i)]));
    if (kept.length >= sent.length) return inner;
    const where = clip(path.join("."), MAX_PATH);
    const issue: ContractIssue = {
      path: where,
      message: `the contract keeps ${kept.length} of the ${sent.length} items the tool sent`,
      expected: items(kept.length),
      received: items(sent.length),
    };
    return [issue, ...inner];
  }
  if (!isRecord(sent) || !isRecord(kept) || Array.isArray(sent) || Array.isArray(kept)) return [];
  return Object.entries(kept).flatMap(([key, item]) =>
    Object.hasOwn(sent, key) ? droppedItems(sent[key], item, [...path, key]) : [],
  );
}

function items(n: number): string {
  return n === 1 ? "1 item" : `${n} items`;
}

function check(
  contract: ToolContract,
  schema: AnySchema,
  value: unknown,
  side: "arguments" | "output",
  reason: Reason,
): Result<unknown, Refusal> {
  // valibot's object schemas accept arrays (typeof "object"); a JSON array is never an object.
  if (Array.isArray(value) && entriesOf(schema) !== undefined) {
    const issue: ContractIssue = {
      path: "",
      message: "Invalid type: Expected Object but received Array",
      expected: "Object",
      received: "Array",
    };
    return err(refuse(reason, summary(contract, side, [issue]), [issue]));
  }
  const parsed = v.safeParse(schema, value, { abortEarly: false });
  if (parsed.success) return ok(parsed.output);
  const hidden = new Set(side === "arguments" ? (contract.sensitive ?? []) : []);
  const all = parsed.issues.map((issue) => {
    const made = toContractIssue(schema, issue);
    return bounded(hidden.has(made.path.split(".")[0] ?? "") ? withoutValue(made, issue) : made);
  });
  const issues = all.slice(0, MAX_ISSUES);
  return err(refuse(reason, summary(contract, side, all), issues));
}

/** One sentence naming how many problems there are and where. */
function summary(contract: ToolContract, side: string, issues: readonly ContractIssue[]): string {
  const paths = [...new Set(issues.map((i) => (i.path === "" ? "(root)" : i.path)))];
  const shown = paths.slice(0, MAX_ISSUES).join(", ");
  const more = paths.length > MAX_ISSUES ? ` and ${paths.length - MAX_ISSUES} more` : "";
  const noun = issues.length === 1 ? "problem" : "problems";
  return `${issues.length} ${noun} in the ${side} of ${contract.name}: ${shown}${more}`;
}

function toContractIssue(root: AnySchema, issue: v.BaseIssue<unknown>): ContractIssue {
  const items = issue.path ?? [];
  const path = items.map((item) => String(item.key)).join(".");
  const last = items.at(-1);
  const received = clip(issue.received);
  // Object schemas report a missing or unknown key with a path item of origin "key".
  if (last !== undefined && last.type === "object" && last.origin === "key") {
    const key = String(last.key);
    const parent = schemaAt(
      root,
      items.slice(0, -1).map((item) => item.key),
    );
    if (issue.expected === "never") {
      const allowed = Object.keys(entriesOf(parent) ?? {});
      const rule = allowed.length === 0 ? "allows no keys" : `allows only ${allowed.join(", ")}`;
      return {
        path,
        message: `unknown key "${key}": the contract ${rule}`,
        expected: null,
        received: clip(v._stringify(last.value)),
      };
    }
    const entry = entriesOf(parent)?.[key];
    return {
      path,
      message: `missing required key "${key}"`,
      expected: expectsOf(entry) ?? issue.expected,
      received,
    };
  }
  return { path, message: issue.message, expected: issue.expected, received };
}

/**
 * An issue of a sensitive argument, told without its value: the refusal is answered to the
 * caller and, over MCP, copied into the model's context, where the audit keeps only a digest.
 */
function withoutValue(made: ContractIssue, issue: v.BaseIssue<unknown>): ContractIssue {
  // valibot's own messages end "…eceived <received>"; a contract's own message may hold the input.
  const tail = `eceived ${issue.received}`;
  let message = made.message.endsWith(tail)
    ? `${made.message.slice(0, -issue.received.length)}${SENSITIVE_RECEIVED}`
    : made.message;
  if (typeof issue.input === "string" && issue.input !== "") {
    message = message.split(issue.input).join(SENSITIVE_RECEIVED);
  }
  return { ...made, message, received: SENSITIVE_RECEIVED };
}

/** An issue with every text in it bounded (`received` is clipped where it is made). */
function bounded(issue: ContractIssue): ContractIssue {
  const expected = issue.expected === null ? null : clip(issue.expected, MAX_MESSAGE);
  return {
    path: clip(issue.path, MAX_PATH),
    message: clip(issue.message, MAX_MESSAGE),
    expected,
    received: issue.received,
  };
}

function clip(text: string, max = MAX_RECEIVED): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The schema reached by following `keys` through objects, arrays and wrappers. */
function schemaAt(schema: unknown, keys: readonly unknown[]): unknown {
  let current = unwrap(schema);
  for (const key of keys) {
    if (!isRecord(current)) return undefined;
    const entries = entriesOf(current);
    if (entries !== undefined) current = unwrap(entries[String(key)]);
    else if ("item" in current) current = unwrap(current.item);
    else return undefined;
  }
  return current;
}

/** Strips `optional`, `nullable` and similar wrappers (they keep the inner schema in `wrapped`). */
function unwrap(schema: unknown): unknown {
  let current = schema;
  while (isRecord(current) && "wrapped" in current) current = current.wrapped;
  return current;
}

/** The entries of an object schema, or undefined for any other schema. */
export function entriesOf(schema: unknown): Record<string, unknown> | undefined {
  if (!isRecord(schema) || !("entries" in schema) || !isRecord(schema.entries)) return undefined;
  return schema.entries;
}

function expectsOf(schema: unknown): string | null {
  const inner = unwrap(schema);
  if (!isRecord(inner) || typeof inner.expects !== "string") return null;
  return inner.expects;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
