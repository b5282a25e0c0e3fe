/**
 * The operator's routes of the OpenAPI document (src/http/openapi-routes.ts has the rest and
 * the shared pieces): the audit and its evidence, escalations, approvals and the kill switch.
 */
import { header, json, query, ref } from "./openapi-components.ts";
import {
  APPROVAL_STATUS,
  BODY,
  body,
  EDGE,
  type Json,
  OPERATOR,
  PAGE,
  path,
  type Route,
} from "./openapi-routes.ts";

export const OPERATOR_ROUTES: readonly Route[] = [
  {
    method: "get",
    path: "/v1/runs/{run_id}/audit",
    id: "runAudit",
    summary: "A page of the run's audit log (operator)",
    reasons: [...OPERATOR, "malformed_payload", "not_found"],
    auth: true,
    params: PAGE,
    ok: {
      200: {
        description:
          'The page; with `Accept: application/x-ndjson`, one entry per line and a `Link: rel="next"` header.',
        headers: { Link: header("Link") },
        content: {
          "application/json": { schema: ref("AuditPage") },
          "application/x-ndjson": { schema: ref("AuditEntry") },
        },
      },
    },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/audit/head",
    id: "auditHead",
    summary: "The audit log's signed head (operator; docs/audit.md)",
    reasons: [...OPERATOR, "not_found"],
    auth: true,
    ok: { 200: json(ref("SignedHead"), "The last entry's seq and hash, signed.") },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/audit/segments",
    id: "auditSegments",
    summary: "The run's audit segments archived to R2 (operator; docs/audit.md)",
    reasons: [...OPERATOR, "not_found"],
    auth: true,
    ok: { 200: json(ref("AuditSegments"), "Oldest first, each with its seqs, head and key.") },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/audit/verify",
    id: "auditVerify",
    summary: "Recompute the run's whole hash chain (operator)",
    reasons: [...OPERATOR, "not_found"],
    auth: true,
    ok: { 200: json(ref("ChainReport"), "Whether the chain holds, and the first bad seq if not.") },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/escalations",
    id: "runEscalations",
    summary: "The run's calls that need a human (operator)",
    reasons: [...OPERATOR, "malformed_payload"],
    auth: true,
    params: [
      ...PAGE,
      query("status", "Which escalations (default `open`).", { enum: ["open", "resolved", "all"] }),
    ],
    ok: { 200: json(ref("EscalationsPage"), "The page.") },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/halt",
    id: "haltRun",
    summary: "The kill switch: the run admits no further call (operator)",
    reasons: [...OPERATOR, "malformed_payload", "not_found"],
    auth: true,
    params: [
      query("reason", "Why, kept with the run (200 characters).", { type: "string" }),
      query("pre_halt", "Halt a run never seen (else 404).", { enum: ["true"] }),
    ],
    ok: { 200: json(ref("HaltView"), "The halted run and its calls still in flight.") },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/escalations/{seq}",
    id: "resolveEscalation",
    summary: "Resolve an escalation: allow one retry of its key, or close it (operator)",
    reasons: [...OPERATOR, ...BODY, "not_found", "escalation_already_resolved"],
    auth: true,
    params: [path("seq", "The escalated entry's `seq`.", { type: "integer", minimum: 1 })],
    body: body("Resolution", "How the escalation ends, and why."),
    ok: { 200: json(ref("Escalation"), "The resolved escalation.") },
  },
  {
    method: "get",
    path: "/v1/approvals",
    id: "tenantApprovals",
    summary: "The tenant's approvals (operator)",
    reasons: [...EDGE, "forbidden_role", "malformed_payload"],
    auth: true,
    params: [APPROVAL_STATUS, PAGE[1] as Json],
    ok: { 200: json(ref("TenantApprovals"), "Pending approvals unless `status` says otherwise.") },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/approvals",
    id: "runApprovals",
    summary: "The run's approvals and what each grant binds (operator)",
    reasons: [...OPERATOR, "malformed_payload", "not_found"],
    auth: true,
    params: [APPROVAL_STATUS],
    ok: { 200: json(ref("RunApprovals"), "Every approval unless `status` says otherwise.") },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/approvals/{approval_id}",
    id: "decideApproval",
    summary: "Approve or deny a call waiting for a person (operator)",
    reasons: [...OPERATOR, ...BODY, "not_found", "approval_already_decided", "approval_expired"],
    auth: true,
    params: [
      path("approval_id", "The approval.", { type: "string", pattern: "^apr_[0-9a-f]{32}$" }),
    ],
    body: body("Decision", "The operator's decision, and why."),
    ok: { 200: json(ref("Approval"), "The decided approval.") },
  },
];
