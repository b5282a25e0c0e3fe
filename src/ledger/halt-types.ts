/**
 * What the kill switch answers, and what settling a call tells the edge about a halt that
 * came while the call ran.
 */
import type { BudgetView, RunView } from "./protocol.ts";

/** What settling a call answers: the budget after, and whether the run was halted first. */
export interface SettleAnswer {
  /** The run's budget after the outcome. */
  budget: BudgetView;
  /**
   * The run was halted while the call ran: a read's result was recorded as `run_halted` and
   * must be neither answered nor cached; a mutation's outcome stands, marked as late.
   */
  afterHalt: boolean;
}

/** A call admitted and not yet settled, as the halt's answer names it. */
export interface InFlightCall {
  /** The call's id. */
  call_id: string;
  /** Its tool. */
  tool: string | null;
  /** Seq of its pending audit entry. */
  seq: number;
  /** When it was admitted. */
  admitted_at: string;
}

/** `POST /v1/runs/{id}/halt`: the run's status, and the calls still running when it was halted. */
export interface HaltView extends RunView {
  /** Calls admitted before the halt and not settled yet: their outcomes will be marked late. */
  in_flight: InFlightCall[];
}
