import type { ToolContract } from "../src/core/contract.ts";
import { addComment } from "./add_comment.ts";
import { createTicket } from "./create_ticket.ts";
import { fetchServiceLogs } from "./fetch_service_logs.ts";
import { noop } from "./noop.ts";
import policy from "./policy.json" with { type: "json" };

/** Every tool the fence knows, each with its literal name and its own schemas' types. */
const TOOLS = [createTicket, addComment, noop, fetchServiceLogs] as const;

/** Every tool the fence knows. A tool not listed here does not exist. */
export const CONTRACTS: readonly ToolContract[] = TOOLS;

/**
 * The contracts as types, for clients: tool names and argument shapes inferred from the
 * same schemas the gate runs (`client/` imports this and nothing else server-side).
 */
export type Contracts = (typeof TOOLS)[number];

/** The policy file as written; validated when the worker module loads. */
export const POLICY_SOURCE: unknown = policy;
