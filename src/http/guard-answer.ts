/**
 * What the result rules did to an answer, as the answer and its audit entry carry it: the
 * findings and a notice in words under `guard` (REST body, MCP `_meta`), one note line in the
 * audit. Neither holds a value the rules found.
 */
import { auditNoteOf, noticeOf } from "../core/guardrails/scan.ts";
import type { Execution } from "../execute/execute.ts";

/** The answer's `guard` member and the outcome's audit note; empty when no rule acted. */
export function guardOf(execution: Execution): {
  body: Record<string, unknown>;
  note: { note?: string };
} {
  const findings = execution.findings ?? [];
  if (findings.length === 0) return { body: {}, note: {} };
  return {
    body: { guard: { findings, notice: noticeOf(findings) } },
    note: { note: auditNoteOf(findings) },
  };
}
