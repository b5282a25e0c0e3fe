/**
 * One structured log line per decision: JSON on the worker's log (Workers Logs, Logpush,
 * `wrangler tail`), with the public fields of the call's audit entry and nothing of its
 * arguments or evidence, so a SIEM can take decisions from the log stream.
 */
/** What the answer says, in the names of the public audit entry. */
export interface DecisionFacts {
  /** `applied`, `cached`, `replayed`, or the refusal's verdict. */
  decision: string;
  /** The refusal's reason, or null. */
  reason: string | null;
  /** HTTP status. */
  status: number;
  /** The call's id. */
  call_id: string | null;
  /** How the cache answered, or null. */
  cache: string | null;
  /** Whether the answer was replayed. */
  replayed: boolean;
  /** The approval the call waits for or spent, or null. */
  approval_id: string | null;
  /** Mutations left in the run's budget, or null. */
  mutations_left: number | null;
  /** Paid calls left in the run's budget, or null. */
  paid_calls_left: number | null;
}

/** The log line's fields beyond the answer's. */
export interface DecisionLine extends DecisionFacts {
  /** The tool's name, or null when the gate could not read one. */
  tool: string | null;
  /** The body form, or null. */
  form: string | null;
  /** Tenant. */
  tenant: string;
  /** Run id. */
  run_id: string;
  /** The caller's key id, or `dev`. */
  principal: string;
  /** Milliseconds the fence took to decide. */
  duration_ms: number;
  /** The call's trace id, or null when no trace. */
  trace_id: string | null;
}

/** The `event` every decision line carries, to filter on. */
export const DECISION_EVENT = "toolfence.decision";

/** Write the line. */
export function logDecision(line: DecisionLine): void {
  console.log(JSON.stringify({ event: DECISION_EVENT, at: new Date().toISOString(), ...line }));
}
