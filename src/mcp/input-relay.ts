/**
 * An upstream's request for the client's input, relayed (MCP 2026-07-28, multi round-trip
 * requests). When an MCP upstream answers a call with `input_required`, the fence answers the
 * client with the same input requests and a `requestState` of its own: the upstream's state,
 * the admitted call (its id and fingerprint), the tool and the round, sealed (AES-256-GCM,
 * src/core/sealed.ts) under a key derived from `CONSOLE_SECRET` and bound to the tenant, the
 * run and the principal. The client's retry opens it and continues that one call: the ledger
 * takes the round's wait once (src/ledger/run/rounds.ts), so a replayed or superseded state
 * continues nothing, and a tampered one, or one of another run or principal, does not open.
 */
import {
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { canonicalize } from "../core/canonical.ts";
import { type SealingContext, seal, unseal } from "../core/sealed.ts";
import type { InputRelay } from "../execute/mcp.ts";
import type { Continuation, Decision } from "../http/decision.ts";
import type { RunRef } from "../ledger/protocol.ts";

/** Every request state the fence hands out starts so; the rest is the sealed round. */
const PREFIX = "tfr_";

/** Sets the sealing key apart from the other uses of the same secret. */
const KEY_LABEL = "toolfence mcp request state v1\n";

/** What a request state holds: the round of one admitted call, and its upstream's state. */
interface SealedRound extends Continuation {
  /** The tool called, which the retry must name. */
  tool: string;
  /** The upstream's own request state for its next round, as it sent it. */
  upstream?: string;
}

/** What a retry carrying a request state continues, and what the upstream gets back. */
export interface OpenedRound {
  /** The admitted call and the round answered. */
  continues: Continuation;
  /** The client's answers and the upstream's state, for the upstream's next round. */
  answers: NonNullable<InputRelay["answers"]>;
}

/** A run's request states, for one principal: sealed from a decision, opened from a retry. */
export interface RoundSeal {
  /** The input-required result that hands an upstream's request for input to the client. */
  ask: (
    tool: string,
    d: Decision & Required<Pick<Decision, "input">>,
  ) => Promise<InputRequiredResult>;
  /**
   * The round a retry of `tool` continues, or null when it carries no request state; a state
   * that does not open (tampered, forged, another run's or principal's) or names another tool
   * is the protocol's invalid params.
   */
  open: (tool: string, mcpReq: ServerContext["mcpReq"]) => Promise<OpenedRound | null>;
}

/** How the request states of this run and principal are sealed: they open for no other. */
function sealingOf(secret: string, ref: RunRef): SealingContext {
  const boundTo = canonicalize([ref.tenant, ref.runId, ref.by ?? null, ref.principal ?? null]);
  return { label: KEY_LABEL, secret, boundTo };
}

/** The request states of one run and principal, sealed under `secret`. */
export function roundSeal(secret: string, ref: RunRef): RoundSeal {
  const sealing = sealingOf(secret, ref);
  return {
    ask: async (tool, d) => {
      const { asked, continues } = d.input;
      const round: SealedRound = {
        ...continues,
        tool,
        ...(asked.requestState === undefined ? {} : { upstream: asked.requestState }),
      };
      const requestState = PREFIX + (await seal(sealing, round));
      // The SDK types input requests by method; these were checked and bounded by the client.
      const inputRequests = asked.inputRequests as InputRequiredResult["inputRequests"];
      return { resultType: "input_required", inputRequests, requestState } as InputRequiredResult;
    },
    open: async (tool, mcpReq) => {
      const state = mcpReq.requestState<unknown>();
      if (state === undefined) return null;
      const opened =
        typeof state === "string" && state.startsWith(PREFIX)
          ? ((await unseal(sealing, state.slice(PREFIX.length))) as SealedRound | null)
          : null;
      if (opened === null || opened.tool !== tool) throw invalidState();
      const { callId, round, fingerprint, upstream } = opened;
      const inputResponses = mcpReq.inputResponses ?? {};
      return {
        continues: { callId, round, fingerprint },
        answers: { inputResponses, ...(upstream === undefined ? {} : { requestState: upstream }) },
      };
    },
  };
}

/** The protocol's answer to a request state that does not open here (SEP-2322: -32602). */
function invalidState(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Invalid requestState: it was not issued by this fence for this call, run and principal, or it was altered.",
  );
}
