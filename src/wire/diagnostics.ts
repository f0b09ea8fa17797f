import { logDiagnostic } from "./diagnostic-log.js";
import { redactUrlsInText } from "./urls.js";

/** One counted problem kind, as `diagnostics()` reports it (runtime and every exporter alike). */
export interface Diagnostic {
  code: string;
  message: string;
  count: number;
}

/**
 * Counts problems by code instead of throwing them into the app; keeps the latest message
 * because it is the most useful one to show. Used by the runtime and by every exporter.
 */
export class DiagnosticCounter {
  private readonly entries = new Map<string, Diagnostic>();

  constructor(private readonly listener?: (d: Diagnostic) => void) {}

  /** Counts `by` occurrences (default 1) of `code`. */
  record(code: string, message: string, by = 1): void {
    // Messages name endpoints; a URL's userinfo and query values never reach a diagnostic.
    message = redactUrlsInText(message);
    let entry = this.entries.get(code);
    if (entry) {
      entry.count += by;
      entry.message = message;
    } else {
      entry = { code, message, count: by };
      this.entries.set(code, entry);
    }
    logDiagnostic(code, message, by);
    if (this.listener) {
      try {
        this.listener({ code, message, count: entry.count });
      } catch {
        // A broken diagnostic listener must not break telemetry either.
      }
    }
  }

  /** `record` with the message of a caught error. */
  recordError(code: string, error: unknown, by = 1): void {
    this.record(code, error instanceof Error ? error.message : String(error), by);
  }

  count(code: string): number {
    return this.entries.get(code)?.count ?? 0;
  }

  list(): Diagnostic[] {
    return [...this.entries.values()].map((d) => ({ ...d }));
  }
}
