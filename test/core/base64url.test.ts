import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "../../src/core/base64url.ts";

const text = (s: string) => new TextEncoder().encode(s);

/** Every byte value, in order. */
const EVERY_BYTE = Uint8Array.from({ length: 256 }, (_, i) => i);

describe("base64url", () => {
  it("writes the RFC 4648 test vectors without padding", () => {
    const vectors = [
      ["", ""],
      ["f", "Zg"],
      ["fo", "Zm8"],
      ["foo", "Zm9v"],
      ["foob", "Zm9vYg"],
      ["fooba", "Zm9vYmE"],
      ["foobar", "Zm9vYmFy"],
    ];
    for (const [plain = "", encoded = ""] of vectors) {
      expect(toBase64Url(text(plain))).toBe(encoded);
      expect(fromBase64Url(encoded)).toEqual(text(plain));
    }
  });

  it("writes - and _ where base64 writes + and /", () => {
    expect(toBase64Url(Uint8Array.of(0xfb, 0xef, 0xbe))).toBe("----");
    expect(toBase64Url(Uint8Array.of(0xff, 0xff, 0xff))).toBe("____");
    expect(toBase64Url(Uint8Array.of(0xfb, 0xff))).toBe("-_8");
    expect(fromBase64Url("-_8")).toEqual(Uint8Array.of(0xfb, 0xff));
  });

  it("round-trips 0 to 300 bytes holding every byte value, as Node's base64url writes them", () => {
    for (let length = 0; length <= 300; length++) {
      for (const offset of [0, 1, 2]) {
        const bytes = Uint8Array.from({ length }, (_, i) => EVERY_BYTE[(i + offset) % 256] ?? 0);
        const encoded = toBase64Url(bytes);
        expect(encoded).toBe(Buffer.from(bytes).toString("base64url"));
        expect(encoded).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(encoded.length).toBe(Math.ceil((length * 4) / 3));
        expect(fromBase64Url(encoded)).toEqual(bytes);
      }
    }
  });

  it("round-trips random bytes", () => {
    for (let n = 0; n < 200; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    }
  });

  it("encodes and decodes half a megabyte without overflowing the stack", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(65536));
    const large = Uint8Array.from({ length: 1 << 19 }, (_, i) => bytes[i % bytes.length] ?? 0);
    const encoded = toBase64Url(large);
    expect(encoded).toBe(Buffer.from(large).toString("base64url"));
    expect(Buffer.from(fromBase64Url(encoded) ?? []).equals(large)).toBe(true);
  });

  it.each([
    ["a +", "Zm+v"],
    ["a /", "Zm/v"],
    ["padding", "Zg=="],
    ["one = of padding", "Zm8="],
    ["one character", "Z"],
    ["one character over a multiple of four", "Zm9vY"],
    ["a space", "Zm9 v"],
    ["a line break", "Zm9v\n"],
    ["a !", "Zm9!"],
    ["a dot", "Zm9v.Zg"],
    ["a non-ASCII letter", "Zm9é"],
    ["unused bits that are not zero, after one byte", "Zh"],
    ["unused bits that are not zero, after two bytes", "Zm9"],
  ])("refuses %s", (_what, encoded) => {
    expect(fromBase64Url(encoded)).toBeNull();
  });
});
