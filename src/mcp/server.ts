/**
 * One MCP server instance per request (the endpoint is stateless; the run's state is its
 * RunLedger). It answers `tools/list` from the caller's contracts and hands every
 * `tools/call` to the fence's one pipeline as a proposal of form `mcp`.
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import type { ToolContract } from "../core/contract.ts";
import { boundedName } from "../core/gate.ts";
import type { Unavailable } from "../execute/configured.ts";
import type { UpstreamNotice } from "../execute/mcp.ts";
import {
  approvalInput,
  clientCapabilitiesOf,
  declaresUrlElicitation,
  pageRefused,
} from "./approval-input.ts";
import { connectAnswer, connectLinkOf } from "./connect-input.ts";
import type { RoundSeal } from "./input-relay.ts";
import { KEY_META, relaysContent, toolResult } from "./results.ts";
import { type ProposeCall, taskHandlers, taskOf } from "./task-handlers.ts";
import { TASK_CAPABILITY, type TaskSeal } from "./tasks.ts";
import { mcpTools } from "./tools.ts";

/** Where `tools/list` names the tools it leaves out, with what their upstream lacks. */
export const UNAVAILABLE_META = "io.toolfence/unavailable";

/** What a server instance needs of the request it serves. */
export interface McpCallContext {
  /** Contracts the caller may use (policy and key subset) whose upstream is configured. */
  tools: readonly ToolContract[];
  /** Contracts the caller may use that are left out: their upstream is not configured. */
  unavailable: readonly Unavailable[];
  /** Whether a policy rule may send calls of this tool to a person. */
  approvable: (name: string) => boolean;
  /** Whether a tool of this name exists at all (in any contract). */
  exists: (name: string) => boolean;
  /** Run a call through the fence (task-handlers.ts says what each argument is). */
  propose: ProposeCall;
  /** The absolute URL of the console page where a person decides approval `id` of this run. */
  approvalPage: (id: string) => string;
  /** Seals and opens this run's task ids; null when the deployment has no secret for them. */
  tasks: TaskSeal | null;
  /**
   * Seals and opens the request states of an upstream's rounds of input, for this run and
   * principal; null when the deployment has no secret for them (nothing is relayed then).
   */
  rounds: RoundSeal | null;
}

/** Which protocol era a server instance serves: only 2026-07-28 has input-required results. */
export type McpEra = "2025" | "2026-07-28";

const INFO = { name: "toolfence", version: "1.0.0" };

const INSTRUCTIONS =
  "Every tool call goes through toolfence: arguments are checked against the tool's contract, mutations are applied once per intent, and the run has a budget and a deadline. A refused call comes back as an error result with the reason and how to re-plan; a call that waits for a person's approval comes back as a pending result saying when to call again.";

/** A fresh low-level server bound to one request's context. */
export function fenceServer(ctx: McpCallContext, era: McpEra): Server {
  // SEP-2663: only the 2026-07-28 era has the Tasks extension, and only with a secret.
  const tasks = era === "2026-07-28" ? ctx.tasks : null;
  const server = new Server(INFO, {
    capabilities: {
      tools: { listChanged: false },
      // 2025 era: an MCP upstream's log messages are relayed during its calls; 2026-07-28
      // carries the level in each request's `_meta` instead (SEP-2577).
      ...(era === "2025" ? { logging: {} } : {}),
      ...(tasks === null ? {} : { extensions: TASK_CAPABILITY }),
    },
    instructions: INSTRUCTIONS,
    // Interprets JSON Schema, never compiles it: workerd forbids eval and new Function.
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  server.setRequestHandler("tools/list", () => ({
    tools: mcpTools(ctx.tools, ctx.approvable),
    // Tools left out, so a client can tell "not configured here" from "does not exist".
    ...(ctx.unavailable.length === 0 ? {} : { _meta: { [UNAVAILABLE_META]: ctx.unavailable } }),
  }));
  server.setRequestHandler("tools/call", async (request, { mcpReq }) => {
    const { name, _meta } = request.params;
    const args = request.params.arguments ?? {};
    const key = _meta?.[KEY_META];
    const notify = (notice: UpstreamNotice) => relayNotice(mcpReq, _meta?.progressToken, notice);
    // 2026-07-28: an upstream may ask this client for what it declared, and a retry carrying
    // the fence's request state continues the call that asked.
    const rounds = era === "2026-07-28" ? ctx.rounds : null;
    const opened = rounds === null ? null : await rounds.open(name, mcpReq);
    const declared = clientCapabilitiesOf(mcpReq) ?? {};
    const relay = opened === null ? { declared } : { declared, answers: opened.answers };
    const input = rounds === null ? {} : { input: relay };
    const continues = opened === null ? {} : { continues: opened.continues };
    const during = { notify, ...input, ...continues };
    const answer = await ctx.propose(name, args, key, mcpReq.id, _meta, undefined, during);
    // The call is audited like any other; a name no contract has is the protocol's error.
    if (!ctx.exists(name)) {
      const named = boundedName(name);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${named}`);
    }
    // A call as the person, who has not connected its upstream: the page, as the era asks.
    // The upstream needs what this client did not declare: the client is told as MCP says.
    if (answer.missingCapabilities !== undefined) {
      const requiredCapabilities = answer.missingCapabilities;
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities },
        "Missing required client capability",
      );
    }
    if (answer.input !== undefined && rounds !== null) {
      return rounds.ask(name, { ...answer, input: answer.input });
    }
    const link = connectLinkOf(answer);
    if (link !== null) return connectAnswer(answer, link, name, era, mcpReq);
    if (answer.status === 202 && era === "2026-07-28") {
      // A client that polls tasks gets one for a mutation, before the host's window is asked.
      if (tasks !== null) {
        const task = await taskOf({ ...ctx, tasks }, mcpReq, { tool: name, args, key }, answer);
        if (task !== null) return task;
      }
      // A host that shows URL elicitations lets its person decide on the approval's page.
      if (declaresUrlElicitation(mcpReq) && !pageRefused(mcpReq)) {
        return approvalInput(answer, name, ctx.approvalPage);
      }
    }
    return toolResult(answer, relaysContent(ctx.tools.find((c) => c.name === name)));
  });
  // Stateless: no level is kept between requests, so every relayed message is sent (the
  // upstream's own level decides what it logs).
  if (era === "2025") server.setRequestHandler("logging/setLevel", () => ({}));
  if (tasks !== null) taskHandlers(server, { ...ctx, tasks });
  return server;
}

/**
 * An upstream's notification during a call, sent on the call's own stream: progress only to a
 * client that sent a progress token (MCP, "Progress"), with that token; a log message through
 * the SDK's request log, which keeps to the level the request asked for.
 */
function relayNotice(
  mcpReq: ServerContext["mcpReq"],
  progressToken: unknown,
  notice: UpstreamNotice,
): void {
  let sent: Promise<void> | undefined;
  if (notice.kind === "log") sent = mcpReq.log(notice.level, notice.data, notice.logger);
  else if (typeof progressToken === "string" || typeof progressToken === "number") {
    const { progress, total, message } = notice;
    const params = { progressToken, progress, ...(total === undefined ? {} : { total }) };
    sent = mcpReq.notify({
      method: "notifications/progress",
      params: { ...params, ...(message === undefined ? {} : { message }) },
    });
  }
  // A client gone before the result loses its notifications, nothing else.
  sent?.catch(() => undefined);
}
