import type { ToolContract } from "../src/core/contract.ts";
import { addComment } from "./add_comment.ts";
import { createTicket } from "./create_ticket.ts";
import { everythingEcho } from "./everything_echo.ts";
import { everythingGetResourceReference } from "./everything_get_resource_reference.ts";
import { everythingGetStructuredContent } from "./everything_get_structured_content.ts";
import { everythingGetSum } from "./everything_get_sum.ts";
import { fetchServiceLogs } from "./fetch_service_logs.ts";
import { getTicket } from "./get_ticket.ts";
import { noop } from "./noop.ts";
import { opsRestartService } from "./ops_restart_service.ts";
import { opsServiceStatus } from "./ops_service_status.ts";
import policy from "./policy.json" with { type: "json" };

/** Every tool the fence knows. A tool not listed here does not exist. */
export const CONTRACTS: readonly ToolContract[] = [
  createTicket,
  addComment,
  noop,
  fetchServiceLogs,
  getTicket,
  everythingEcho,
  everythingGetSum,
  everythingGetStructuredContent,
  everythingGetResourceReference,
  opsServiceStatus,
  opsRestartService,
];

/** The policy file as written; validated when the worker module loads. */
export const POLICY_SOURCE: unknown = policy;
