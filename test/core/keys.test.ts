import { describe, expect, it } from "vitest";
import { BEARER_TOKEN, newApiKey, parseKeyRecord, roleAllows } from "../../src/core/keys.ts";

const valid = {
  tenant: "acme",
  role: "agent",
  tools: ["noop", "fetch_service_logs"],
  label: "triage bot",
  created_at: "2026-12-02T13:00:00.000Z",
};

describe("key records", () => {
  it("accepts a record with a tenant, a role, a tool subset, a label and a timestamp", () => {
    expect(parseKeyRecord(valid)).toEqual({ ok: true, value: valid });
  });

  it.each([
    ["a tenant with a slash", { ...valid, tenant: "acme/eu" }],
    ["an upper-case tenant", { ...valid, tenant: "Acme" }],
    ["an unknown role", { ...valid, role: "admin" }],
    ["an empty tool list", { ...valid, tools: [] }],
    ["a tool listed twice", { ...valid, tools: ["noop", "noop"] }],
    ["an unknown member", { ...valid, scopes: ["*"] }],
    ["a timestamp that is not ISO 8601", { ...valid, created_at: "yesterday" }],
  ])("refuses %s", (_what, record) => {
    expect(parseKeyRecord(record).ok).toBe(false);
  });

  it("issues keys that are Bearer tokens and never repeat", () => {
    const keys = Array.from({ length: 100 }, newApiKey);
    expect(keys.every((k) => BEARER_TOKEN.test(k) && k.startsWith("tf_"))).toBe(true);
    expect(new Set(keys).size).toBe(100);
  });

  it("lets an operator do what an agent may, and not the other way round", () => {
    expect(roleAllows("operator", "agent")).toBe(true);
    expect(roleAllows("agent", "operator")).toBe(false);
  });
});
