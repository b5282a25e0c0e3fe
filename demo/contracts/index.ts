import { noop } from "../../contracts/noop.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { addComment } from "./add_comment.ts";
import { createTicket } from "./create_ticket.ts";
import { everythingEcho } from "./everything_echo.ts";
import { everythingGetResourceReference } from "./everything_get_resource_reference.ts";
import { everythingGetStructuredContent } from "./everything_get_structured_content.ts";
import { everythingGetSum } from "./everything_get_sum.ts";
import { fetchServiceLogs } from "./fetch_service_logs.ts";
import { getTicket } from "./get_ticket.ts";
import { kbSearch } from "./kb_search.ts";
import { notesAddNote } from "./notes_add_note.ts";
import { notesWhoami } from "./notes_whoami.ts";
import { opsRestartService } from "./ops_restart_service.ts";
import { opsServiceStatus } from "./ops_service_status.ts";
import policy from "./policy.json" with { type: "json" };

/**
 * Every tool the fence knows, by name. A tool not listed here does not exist. Each keeps
 * its schemas' types, so typed clients infer a tool's arguments and result from it.
 */
export const TOOLS = {
  create_ticket: createTicket,
  add_comment: addComment,
  noop,
  fetch_service_logs: fetchServiceLogs,
  get_ticket: getTicket,
  everything_echo: everythingEcho,
  everything_get_sum: everythingGetSum,
  everything_get_structured_content: everythingGetStructuredContent,
  everything_get_resource_reference: everythingGetResourceReference,
  ops_service_status: opsServiceStatus,
  ops_restart_service: opsRestartService,
  kb_search: kbSearch,
  notes_whoami: notesWhoami,
  notes_add_note: notesAddNote,
} as const;

/** The same contracts as a list, for the fence. */
export const CONTRACTS: readonly ToolContract[] = Object.values(TOOLS);

/** The policy file as written; validated when the worker module loads. */
export const POLICY_SOURCE: unknown = policy;
