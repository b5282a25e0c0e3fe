/**
 * What the kill switch answers, and what settling a call tells the edge about a halt that
 * came while the call ran.
 */
import type { BudgetView } from "../protocol.ts";

export type { HaltView, InFlightCall } from "../../core/shapes/run.ts";

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
