import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import type { ContractIssue, Refusal } from "../../src/core/reasons.ts";
import type { Result } from "../../src/core/result.ts";
import { validateArgs, validateOutput } from "../../src/core/validate.ts";

function tool(name: string): ToolContract {
  const found = CONTRACTS.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no contract ${name}`);
  return found;
}

function refusal(result: Result<unknown, Refusal>): Refusal {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return result.error;
}

function issues(result: Result<unknown, Refusal>): ContractIssue[] {
  return refusal(result).issues ?? [];
}

function paths(result: Result<unknown, Refusal>): string[] {
  return [...new Set(issues(result).map((i) => i.path))].sort();
}

const logs = tool("fetch_service_logs");
const ticket = tool("create_ticket");
const comment = tool("add_comment");

const COMMENT = { id: 7, body: "looks like a bad deploy", created_at: "2025-01-01T00:00:00Z" };

/** Dotted paths of every number inside `value`. */
function numberPaths(value: unknown, prefix = ""): string[] {
  if (typeof value === "number") return [prefix];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, child]) =>
    numberPaths(child, prefix === "" ? k : `${prefix}.${k}`),
  );
}

/** A deep copy of `value` with the number at `path` replaced by its decimal string. */
function stringifyAt(value: unknown, path: string): unknown {
  const copy: unknown = structuredClone(value);
  const keys = path.split(".");
  const last = keys.pop() ?? "";
  let node = copy as Record<string, unknown>;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  node[last] = String(node[last]);
  return copy;
}

describe("validateArgs: the four malformed fetch_service_logs calls", () => {
  it("rejects a spelled-out window and names only window", () => {
    const result = validateArgs(logs, { service: "auth", window: "24 hours" });
    expect(refusal(result).reason).toBe("contract_violation");
    expect(paths(result)).toEqual(["window"]);
    expect(issues(result)[0]?.received).toBe('"24 hours"');
  });

  it("rejects a display name and a relative day and names both keys", () => {
    const result = validateArgs(logs, { service: "Auth Service", window: "yesterday" });
    expect(paths(result)).toEqual(["service", "window"]);
    expect(refusal(result).detail).toBe(
      "2 problems in the arguments of fetch_service_logs: service, window",
    );
  });

  it("rejects an array service and a numeric window, showing expected and received types", () => {
    const result = validateArgs(logs, { service: ["auth"], window: 24 });
    expect(issues(result)).toEqual([
      expect.objectContaining({ path: "service", expected: "string", received: "Array" }),
      expect.objectContaining({ path: "window", expected: "string", received: "24" }),
    ]);
  });

  it("rejects an empty service and names only service", () => {
    const result = validateArgs(logs, { service: "", window: "24h" });
    expect(paths(result)).toEqual(["service"]);
    expect(issues(result).map((i) => i.message)).toContain("service cannot be empty");
  });
});

describe("validateArgs: strictness", () => {
  it("returns the validated output with the priority default applied", () => {
    const args = { ticket_id: "T-1", title: "Auth is down" };
    const result = validateArgs(ticket, args);
    expect(result).toEqual({
      ok: true,
      value: { ticket_id: "T-1", title: "Auth is down", priority: "normal" },
    });
    // The tool gets the validated copy, never the caller's object.
    if (!result.ok) throw new Error("expected the arguments to pass");
    expect(result.value).not.toBe(args);
  });

  it("accepts the example arguments and result of every tool", () => {
    for (const contract of CONTRACTS) {
      const example = contract.example;
      expect(example, `an example in contracts/ for ${contract.name}`).toBeDefined();
      expect(validateArgs(contract, example?.args).ok, contract.name).toBe(true);
      expect(validateOutput(contract, example?.result).ok, contract.name).toBe(true);
    }
  });

  it('rejects "24" wherever the contracts want a number', () => {
    let probed = 0;
    for (const contract of CONTRACTS) {
      for (const side of ["args", "result"] as const) {
        const value = contract.example?.[side];
        for (const path of numberPaths(value)) {
          const check = side === "args" ? validateArgs : validateOutput;
          const result = check(contract, stringifyAt(value, path));
          expect(paths(result), `${contract.name} ${side} ${path}`).toEqual([path]);
          expect(issues(result)[0]?.expected).toBe("number");
          probed += 1;
        }
      }
    }
    // comment.id in add_comment and ticket.comments.0.id in create_ticket.
    expect(probed).toBeGreaterThanOrEqual(2);
  });

  it("rejects an unknown key, naming its path and the allowed keys", () => {
    const result = validateArgs(comment, { ticket_id: "T-1", body: "hi", extra: "x" });
    expect(issues(result)).toEqual([
      {
        path: "extra",
        message: 'unknown key "extra": the contract allows only ticket_id, body',
        expected: null,
        received: '"x"',
      },
    ]);
  });

  it("rejects a missing required key by name", () => {
    const result = validateArgs(logs, { service: "auth" });
    expect(issues(result)).toEqual([
      expect.objectContaining({
        path: "window",
        message: 'missing required key "window"',
        expected: "string",
      }),
    ]);
  });

  it('rejects "HIGH" for priority: enums are never case-folded', () => {
    const result = validateArgs(ticket, { ticket_id: "T-1", priority: "HIGH" });
    expect(paths(result)).toEqual(["priority"]);
    expect(issues(result)[0]?.received).toBe('"HIGH"');
  });

  it("rejects null for an optional key: omitted and null are different", () => {
    expect(paths(validateArgs(ticket, { ticket_id: "T-1", title: null }))).toEqual(["title"]);
  });

  it("rejects a payload that is not an object, at the root path", () => {
    for (const payload of ["service=auth", null, 24, []]) {
      const result = validateArgs(tool("noop"), payload);
      expect(paths(result), JSON.stringify(payload)).toEqual([""]);
      expect(refusal(result).detail).toBe("1 problem in the arguments of noop: (root)");
    }
  });

  it("keeps a long received value short", () => {
    const result = validateArgs(logs, { service: "auth", window: "x".repeat(10_000) });
    expect(issues(result)[0]?.received.length).toBeLessThanOrEqual(121);
  });
});

describe("validateOutput", () => {
  it("refuses an answer outside the output contract as output_contract_violation", () => {
    const result = validateOutput(comment, {
      ticket_id: "T-1",
      comment: { ...COMMENT, id: "7", extra: true },
    });
    const error = refusal(result);
    expect(error.reason).toBe("output_contract_violation");
    expect(error.detail).toBe("2 problems in the output of add_comment: comment.id, comment.extra");
    expect(issues(result)[1]?.message).toBe(
      'unknown key "extra": the contract allows only id, body, created_at',
    );
  });

  it("names array indices in the path", () => {
    const result = validateOutput(logs, { logs: ["ok", 3] });
    expect(paths(result)).toEqual(["logs.1"]);
  });
});
