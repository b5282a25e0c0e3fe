import { describe, expect, it } from "vitest";
import {
  auditNoteOf,
  findingsOfNote,
  type GuardFinding,
} from "../../../src/core/guardrails/scan.ts";

describe("the result rules' audit note", () => {
  it("reads back to the findings it was written from, paths with commas and sizes included", () => {
    const findings: GuardFinding[] = [
      {
        rule: "secrets",
        what: "github-pat",
        action: "redact",
        path: '$["a, secrets:b"]',
        offset: 4,
        count: 1,
      },
      {
        rule: "oversized_field",
        what: "70000 bytes",
        action: "flag",
        path: "$.logs[3]",
        offset: 0,
        count: 1,
      },
      {
        rule: "hidden_characters",
        what: "U+200B",
        action: "redact",
        path: "$.body",
        offset: 9,
        count: 3,
      },
    ];
    expect(findingsOfNote(auditNoteOf(findings))).toEqual(findings);
  });

  it("is not read as findings when it is another note", () => {
    expect(findingsOfNote("settled after the run was halted (outcome: applied)")).toBeNull();
    expect(findingsOfNote("result rules: nonsense")).toBeNull();
  });
});
