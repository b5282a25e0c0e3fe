import { describe, expect, it } from "vitest";
import { scanListedTool, skeleton } from "../../../src/core/guardrails/listing-scan.ts";

const input = { type: "object", properties: { q: { type: "string" } } };

const imitates = (name: string, other: string) =>
  scanListedTool({ name, inputSchema: input }, [other]).some(
    (f) => f.kind === "confusable_name" && f.what === other,
  );

describe("a name that imitates another tool's (UTS #39 confusables)", () => {
  it.each([
    ["an ASCII look-alike", "create_tlcket", "create_ticket"],
    ["a Cyrillic es", "\u0441reate_ticket", "create_ticket"],
    ["a Greek omicron", "l\u03BFokup_order", "lookup_order"],
    ["fullwidth letters", "\uFF43\uFF52\uFF45\uFF41\uFF54\uFF45_ticket", "create_ticket"],
    ["a Latin alpha", "lookup_\u0251ccount", "lookup_account"],
    ["a Cherokee A and an Armenian oh", "\u13AAdd_c\u0585mment", "Add_comment"],
    ["a Lisu letter for a capital I", "\uA4F2ssue_refund", "Issue_refund"],
    ["rn for m", "rnerge_request", "merge_request"],
  ])("finds %s", (_what, name, other) => {
    expect(skeleton(name)).toBe(skeleton(other));
    expect(imitates(name, other)).toBe(true);
  });

  it.each([
    ["get_user", "set_user"],
    ["create_ticket", "update_ticket"],
    ["list_items", "list_item"],
    ["read_file", "read_files"],
    ["cancel_order", "cancel_orders"],
    ["send_email", "send_mail"],
  ])("does not take %s for %s", (name, other) => {
    expect(imitates(name, other)).toBe(false);
  });
});
