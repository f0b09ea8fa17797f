import type { DiagnosticCounter } from "../wire/diagnostics.js";
import { thrownMessage } from "./event-factory.js";

/**
 * Runs `record` (the work of ending a call that has failed: its failed end event, a cut stream's
 * partial reply) so that nothing it throws can take the place of the call's own error, which the
 * caller rethrows next. A throw here is counted as `failure_not_recorded`, naming `what`.
 */
export function recordWhileFailing(diagnostics: DiagnosticCounter, what: string, record: () => void): void {
  try {
    record();
  } catch (error) {
    try {
      const message = `${what}: recording its failure threw (${thrownMessage(error)}); the call's own error is kept`;
      diagnostics.record("failure_not_recorded", message);
    } catch {
      // Counting must not replace the call's error either.
    }
  }
}
