import { describe, expect, it } from "vitest";
import { type ProposedCall, readCall } from "../../src/core/body.ts";
import type { Refusal } from "../../src/core/reasons.ts";
import type { Result } from "../../src/core/result.ts";

const LIMITS = { maxDepth: 8 };
const JSON_TYPE = "application/json";
const FENCE = "```";
const KEY = "key-0001:retry/1";
const ARGS = { ticket_id: "T-1", title: "Auth is down", tags: ["p1", { team: "idp" }] };

function read(body: unknown, headerKey: string | null = null, type = JSON_TYPE) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return readCall(type, text, headerKey, LIMITS);
}

function call(result: Result<ProposedCall, Refusal>): ProposedCall {
  if (!result.ok) throw new Error(`expected a call, got ${result.error.detail}`);
  return result.value;
}

function refusal(result: Result<unknown, Refusal>): Refusal {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return result.error;
}

const canonical = { tool: "create_ticket", args: ARGS, idempotency_key: KEY };
const openai = {
  type: "function",
  id: "call_1",
  function: { name: "create_ticket", arguments: JSON.stringify(ARGS) },
};
const anthropic = { type: "tool_use", id: "toolu_1", name: "create_ticket", input: ARGS };

describe("readCall maps every form to one proposed call", () => {
  it("maps canonical, text, OpenAI and Anthropic bodies to the same call", () => {
    const fenced = `${FENCE}json\n${JSON.stringify(canonical)}\n${FENCE}`;
    const calls = [
      call(read(canonical)),
      call(read(fenced, null, "text/plain")),
      call(read(openai, KEY)),
      call(read(anthropic, KEY)),
    ];
    expect(calls.map((c) => c.form)).toEqual(["canonical", "text", "openai", "anthropic"]);
    for (const c of calls) {
      expect({ tool: c.tool, args: c.args, key: c.idempotencyKey }).toEqual({
        tool: "create_ticket",
        args: ARGS,
        key: KEY,
      });
    }
  });

  it("passes tool names through untouched, near misses included", () => {
    expect(call(read({ tool: "create_ticket ", args: {} })).tool).toBe("create_ticket ");
    expect(call(read({ tool: "Create_Ticket", args: {} })).tool).toBe("Create_Ticket");
    expect(call(read({ type: "tool_use", name: " x", input: {} })).tool).toBe(" x");
  });

  it("returns a null key when neither the body nor the header has one", () => {
    expect(call(read({ tool: "t", args: {} })).idempotencyKey).toBeNull();
  });
});

describe("readCall checks the content type", () => {
  it.each([
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    'application/json;charset="UTF-8"',
    "application/vnd.toolfence.call+json",
    "application/json;",
  ])("reads %s as JSON", (type) => {
    expect(call(read(canonical, null, type)).form).toBe("canonical");
  });

  it.each(["text/plain", "TEXT/PLAIN; charset=utf-8"])("reads %s as model text", (type) => {
    expect(call(read(canonical, null, type)).form).toBe("text");
  });

  it.each([
    ["missing", null],
    ["empty", ""],
    ["text/html", "text/html"],
    ["application/xml", "application/xml"],
    ["a bare +json suffix", "application/+json"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["a latin-1 charset", "application/json; charset=iso-8859-1"],
    ["a utf-16 text charset", "text/plain; charset=utf-16"],
    ["a malformed parameter", "application/json; utf-8"],
  ])("refuses a %s content type as unsupported_media_type", (_, type) => {
    const r = refusal(readCall(type, JSON.stringify(canonical), null, LIMITS));
    expect(r.reason).toBe("unsupported_media_type");
    expect(r.detail).toContain("application/json");
    expect(r.detail).toContain("text/plain");
  });
});

describe("readCall reads model text", () => {
  const inner = JSON.stringify({ tool: "t", args: { a: 1 } });

  it.each([
    ["a fence tagged json", `${FENCE}json\n${inner}\n${FENCE}`],
    ["a fence without a tag", `${FENCE}\n${inner}\n${FENCE}`],
    [
      "a fence with CRLF line ends and outer whitespace",
      `\r\n  ${FENCE}JSON\r\n${inner}\r\n${FENCE}\n`,
    ],
    ["bare JSON with whitespace around it", `\n\n  ${inner}  \n`],
  ])("takes the JSON from %s", (_, text) => {
    const c = call(read(text, null, "text/plain"));
    expect(c).toEqual({ tool: "t", args: { a: 1 }, idempotencyKey: null, form: "text" });
  });

  it.each([
    ["a fence followed by prose", `${FENCE}json\n${inner}\n${FENCE}\nHope this helps!`, "follows"],
    ["prose before a fence", `Here you go:\n${FENCE}json\n${inner}\n${FENCE}`, "character 0"],
    ["prose after bare JSON", `${inner} Let me know!`, "end of input"],
    ["two objects", `${inner}\n${inner}`, "end of input"],
    ["two objects in one fence", `${FENCE}json\n${inner}${inner}\n${FENCE}`, "end of input"],
    ["a truncated object", '{"tool":"t","args":{"a":', "end of input"],
    ["a fence that is never closed", `${FENCE}json\n${inner}`, "never closed"],
    ["a fence on one line", `${FENCE}${inner}${FENCE}`, "fence"],
    ["an empty fence", `${FENCE}json\n${FENCE}`, "JSON value"],
  ])("refuses %s as malformed_payload", (_, text, hint) => {
    const r = refusal(read(text, null, "text/plain"));
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain(hint);
  });

  it("keeps the parser's reason for text that nests too deep", () => {
    const deep = `{"tool":"t","args":${"[".repeat(20)}${"]".repeat(20)}}`;
    expect(refusal(read(deep, null, "text/plain")).reason).toBe("payload_too_large");
  });
});

describe("readCall refuses envelopes outside the accepted shapes", () => {
  it.each([
    ["an array", [canonical], "not an array"],
    ["a string", '"hello"', "not a string"],
    ["null", "null", "not null"],
    ["no recognisable shape", { name: "t", arguments: "{}" }, '"tool_use"'],
    ["an unknown type", { type: "tool_call", name: "t", input: {} }, '"function"'],
    ["an unknown canonical key", { tool: "t", args: {}, type: "function" }, 'Unknown key "type"'],
    ["args as a list", { tool: "t", args: [1] }, "not an array"],
    ["args as a string holding JSON", { tool: "t", args: '{"a":1}' }, "is not parsed"],
    ["args as a number", { tool: "t", args: 1 }, "not a number"],
    ["args as null", { tool: "t", args: null }, "not null"],
    ["missing args", { tool: "t" }, '"args" is missing'],
    ["a numeric tool name", { tool: 7, args: {} }, '"tool" must be'],
    ["an array as Anthropic input", { ...anthropic, input: [] }, '"input"'],
    ["a missing Anthropic name", { type: "tool_use", input: {} }, '"name" is missing'],
    ["an unknown Anthropic key", { ...anthropic, extra: 1 }, 'Unknown key "extra"'],
    ["a numeric id", { ...anthropic, id: 1 }, '"id"'],
  ])("refuses %s as malformed_payload", (_, body, hint) => {
    const r = refusal(read(body));
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain(hint);
  });

  it("refuses a duplicate envelope key that JSON.parse would collapse", () => {
    const r = refusal(read('{"tool":"read_logs","args":{},"tool":"create_ticket"}'));
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain('"tool"');
  });
});

describe("readCall reads OpenAI function.arguments strictly", () => {
  const withArguments = (args: unknown) => ({
    ...openai,
    function: { name: "t", arguments: args },
  });

  it.each([
    ["a list", "[1,2]", "not an array"],
    ["invalid JSON", '{"ticket_id": T-1}', "In function.arguments"],
    ["a duplicate key", '{"a":1,"a":2}', "In function.arguments"],
    ["JSON with trailing text", '{"a":1} {"a":2}', "In function.arguments"],
  ])("refuses arguments that hold %s", (_, args, hint) => {
    const r = refusal(read(withArguments(args)));
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain(hint);
    expect(r.detail).toContain("function.arguments");
  });

  it.each([
    ["an object", { a: 1 }],
    ["null", null],
  ])("refuses arguments sent as %s instead of a string", (_, args) => {
    const r = refusal(read(withArguments(args)));
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain('"function.arguments" must be a string of JSON');
  });

  it("refuses unknown keys in the function object", () => {
    const body = { ...openai, function: { ...openai.function, strict: true } };
    expect(refusal(read(body)).detail).toContain('Unknown key "function.strict"');
  });

  it("gives the arguments the same nesting budget as canonical args", () => {
    // LIMITS.maxDepth is 8: the envelope takes one level, the args object and 6 more fit.
    const fits = `{"a":${"[".repeat(6)}${"]".repeat(6)}}`;
    const tooDeep = `{"a":${"[".repeat(7)}${"]".repeat(7)}}`;
    expect(call(read(`{"tool":"t","args":${fits}}`)).args).toEqual(JSON.parse(fits));
    expect(call(read(withArguments(fits))).args).toEqual(JSON.parse(fits));
    expect(refusal(read(`{"tool":"t","args":${tooDeep}}`)).reason).toBe("payload_too_large");
    expect(refusal(read(withArguments(tooDeep))).reason).toBe("payload_too_large");
  });
});

describe("readCall settles the idempotency key", () => {
  it("takes the key from the header", () => {
    expect(call(read({ tool: "t", args: {} }, KEY)).idempotencyKey).toBe(KEY);
  });

  it("accepts the same key in the body and the header", () => {
    expect(call(read(canonical, KEY)).idempotencyKey).toBe(KEY);
  });

  it("refuses a body key that differs from the header key", () => {
    const r = refusal(read(canonical, `${KEY}x`));
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain("differs");
  });

  it.each(["12345678", "A".repeat(128), "azAZ09._:~+/=-"])("accepts the key %s", (key) => {
    expect(call(read({ ...canonical, idempotency_key: key })).idempotencyKey).toBe(key);
    expect(call(read({ tool: "t", args: {} }, key)).idempotencyKey).toBe(key);
  });

  it.each([
    ["7 characters", "1234567", "string of 7 characters"],
    ["129 characters", "A".repeat(129), "string of 129 characters"],
    ["a space", "has space 1", 'string of 11 characters with " "'],
    ["a newline", "line\nbreak", 'string of 10 characters with "\\n"'],
    ["a non-ASCII letter", "clé-12345", 'string of 9 characters with "é"'],
    ["no characters", "", "string of 0 characters"],
  ])("refuses a key with %s as contract_violation", (_, key, received) => {
    for (const result of [
      read({ ...canonical, idempotency_key: key }),
      read({ tool: "t", args: {} }, key),
    ]) {
      const r = refusal(result);
      expect(r.reason).toBe("contract_violation");
      expect(r.issues).toEqual([
        {
          path: "idempotency_key",
          message: expect.any(String),
          expected: "8-128 characters of [A-Za-z0-9._:~+/=-]",
          received,
        },
      ]);
    }
  });

  it("refuses a body key that is not a string as contract_violation", () => {
    const r = refusal(read({ ...canonical, idempotency_key: 12345678 }));
    expect(r.reason).toBe("contract_violation");
    expect(r.issues?.[0]?.received).toBe("a number");
  });
});
