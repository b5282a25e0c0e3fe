import fc from "fast-check";

/**
 * What the generators know of each tool, written out by hand from demo/contracts/ rather than
 * derived from the valibot schemas, so a schema that drifts looser is caught instead of
 * followed. A test checks that each still names a contract with the same effect; a tool with
 * no spec here is covered by its contract's example and the properties over every contract.
 */

/** One string argument of a tool. */
export interface FieldSpec {
  /** Member name in `args`. */
  name: string;
  /** Whether the contract requires it. */
  required: boolean;
  /** Values the contract accepts. */
  valid: fc.Arbitrary<string>;
  /** Longest accepted length in UTF-16 code units. */
  maxLength: number;
  /** Strings of the right type the contract refuses: case, whitespace, near-miss values. */
  nearMisses: fc.Arbitrary<string>;
}

/** One tool as the generators see it. */
export interface ToolSpec {
  /** Exact tool name. */
  name: string;
  /** Whether a valid call needs an idempotency key. */
  mutates: boolean;
  /** Its arguments. */
  fields: readonly FieldSpec[];
}

/** Any well-formed string (no lone surrogates), at most `max` UTF-16 code units. */
function text(min: number, max: number): fc.Arbitrary<string> {
  const ascii = fc.string({ minLength: min, maxLength: max });
  const unicode = fc.string({ unit: "grapheme", minLength: min, maxLength: max });
  return fc
    .oneof({ arbitrary: ascii, weight: 3 }, { arbitrary: unicode, weight: 1 })
    .filter((s) => s.length >= min && s.length <= max);
}

/** A ticket id, often one of a few shared ids so that tickets and comments meet. */
const ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const ticketId = fc.oneof(
  fc.constantFrom("T-1", "T-2", "T-fuzz"),
  fc
    .tuple(
      fc.constantFrom(...ID_CHARS.slice(0, 62)),
      fc.string({ unit: fc.constantFrom(...ID_CHARS), maxLength: 63 }),
    )
    .map(([first, rest]) => first + rest),
);

const PRIORITIES = ["low", "normal", "high", "urgent"];

/** `s` with whitespace or case changed; never equal to `s` when `s` has a letter. */
function caseOrSpace(s: string): fc.Arbitrary<string> {
  return fc.constantFrom(
    ` ${s}`,
    `${s} `,
    `${s}\n`,
    `\t${s}`,
    s.toUpperCase() === s ? `${s}X` : s.toUpperCase(),
    `${s.charAt(0).toUpperCase()}${s.slice(1)}X`,
  );
}

/** Names that a model might mean as this field but that the strict object refuses. */
export function nearMissKey(name: string): fc.Arbitrary<string> {
  const camel = name.replace(/_(.)/g, (_, c: string) => c.toUpperCase());
  return fc.constantFrom(
    name.toUpperCase(),
    `${name} `,
    ` ${name}`,
    `${name}s`,
    name.replace(/_/g, "-"),
    camel === name ? `${name}_` : camel,
  );
}

/** Both ticket tools name their ticket the same way. */
const TICKET_ID: FieldSpec = {
  name: "ticket_id",
  required: true,
  valid: ticketId,
  maxLength: 64,
  nearMisses: fc.constantFrom("", ".", "..", "%2e%2e", "T 1", "T/1", "-T1", "T-1\n"),
};

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "create_ticket",
    mutates: true,
    fields: [
      TICKET_ID,
      {
        name: "title",
        required: false,
        valid: text(1, 200),
        maxLength: 200,
        nearMisses: fc.constant(""),
      },
      {
        name: "body",
        required: false,
        valid: text(0, 2000),
        maxLength: 2000,
        nearMisses: fc.constant("x".repeat(2001)),
      },
      {
        name: "priority",
        required: false,
        valid: fc.constantFrom(...PRIORITIES),
        maxLength: 6,
        nearMisses: fc.oneof(
          fc.constantFrom(...PRIORITIES).chain(caseOrSpace),
          fc.constantFrom("critical", "medium", "p1", "HIGH", "Urgent", "", "normal."),
        ),
      },
    ],
  },
  {
    name: "add_comment",
    mutates: true,
    fields: [
      TICKET_ID,
      {
        name: "body",
        required: true,
        valid: text(1, 2000),
        maxLength: 2000,
        nearMisses: fc.constant(""),
      },
    ],
  },
  {
    name: "noop",
    mutates: false,
    fields: [
      {
        name: "note",
        required: false,
        valid: text(0, 200),
        maxLength: 200,
        nearMisses: fc.constant("n".repeat(201)),
      },
    ],
  },
  {
    name: "fetch_service_logs",
    mutates: false,
    fields: [
      {
        name: "service",
        required: true,
        valid: fc.stringMatching(/^[a-z0-9-]{1,63}$/),
        maxLength: 63,
        nearMisses: fc.oneof(
          fc.constantFrom("Auth", "auth service", "auth_service", "", "AUTH", "auth\n", "аuth"),
          fc.stringMatching(/^[a-z0-9-]{1,20}$/).chain(caseOrSpace),
        ),
      },
      {
        name: "window",
        required: true,
        valid: fc.stringMatching(/^[1-9][0-9]{0,2}[mh]$/),
        maxLength: 4,
        nearMisses: fc.oneof(
          fc.constantFrom("24 hours", "0m", "1000h", "5M", "5s", "5", "1d", "yesterday", "05m"),
          fc.stringMatching(/^[1-9][0-9]{0,2}[mh]$/).chain(caseOrSpace),
        ),
      },
    ],
  },
];

/** Valid arguments of one tool: required fields always, optional ones sometimes. */
export function validArgs(tool: ToolSpec): fc.Arbitrary<Record<string, string>> {
  const model: Record<string, fc.Arbitrary<string>> = {};
  for (const f of tool.fields) model[f.name] = f.valid;
  const requiredKeys = tool.fields.filter((f) => f.required).map((f) => f.name);
  return fc.record(model, { requiredKeys });
}

/** Tool names that are not tools: case, whitespace, separators and look-alike letters. */
export function nearMissTool(name: string): fc.Arbitrary<string> {
  return fc
    .constantFrom(
      name.toUpperCase(),
      `${name.charAt(0).toUpperCase()}${name.slice(1)}`,
      ` ${name}`,
      `${name} `,
      name.replace(/_/g, "-"),
      name.replace(/_/g, ""),
      `${name}s`,
      name.slice(0, -1),
      // U+200B zero-width space and U+043E Cyrillic o: invisible or identical on screen.
      `${name.slice(0, 2)}\u200b${name.slice(2)}`,
      name.replace("o", "\u043e"),
      `functions.${name}`,
    )
    .filter((n) => !TOOLS.some((t) => t.name === n));
}

/** Idempotency keys shared by the calls of a run, so retries and reuses happen. */
export const KEY_POOL = ["k-fuzz-0001", "k-fuzz-0002", "k-fuzz-0003", "k-fuzz-0004", "k-fuzz-0005"];

/** Keys the fence refuses: too short, too long, spaces, non-ASCII, not a string. */
export const BAD_KEYS: fc.Arbitrary<unknown> = fc.constantFrom(
  "short",
  "k".repeat(129),
  "key with spaces",
  "k-fuzz-0001\n",
  "k-fuzz-ключ-1",
  12345678,
  null,
  ["k-fuzz-0001"],
);
