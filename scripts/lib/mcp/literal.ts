/**
 * Upstream data as JavaScript source. Every value an MCP server sends (tool names,
 * descriptions, schema keys, patterns, enum values) reaches a generated file only through
 * `literal`, as a JSON literal: never inside a comment, a template or an identifier, so no
 * text a server sends can end a string and become code.
 */

/**
 * `value` as a compact JSON-form literal with the same meaning in JavaScript: JSON itself,
 * except that U+2028 and U+2029 are escaped and a `__proto__` key is written as a computed
 * key (in an object literal, a plain `"__proto__":` sets the prototype instead of a key).
 * Throws on a value JSON has no form for; nothing parsed from JSON is one.
 */
export function literal(value: unknown): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`no literal for the number ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === "string") return stringLiteral(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(",")}]`;
  if (typeof value === "object") {
    const fields = Object.entries(value).map(([k, v]) => `${keyLiteral(k)}:${literal(v)}`);
    return `{${fields.join(",")}}`;
  }
  throw new TypeError(`no literal for a ${typeof value}`);
}

/** A property key of an object literal, quoted; `__proto__` as a computed key. */
export function keyLiteral(key: string): string {
  return key === "__proto__" ? `[${stringLiteral(key)}]` : stringLiteral(key);
}

function stringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
