import type { Diagnostic } from "./types.js";

/** Counts problems by code instead of throwing them into the app; keeps the latest message. */
export class DiagnosticCounter {
  private readonly entries = new Map<string, Diagnostic>();

  constructor(private readonly listener?: (d: { code: string; message: string }) => void) {}

  record(code: string, message: string): void {
    const entry = this.entries.get(code);
    if (entry) {
      entry.count++;
      entry.message = message;
    } else {
      this.entries.set(code, { code, message, count: 1 });
    }
    if (this.listener) {
      try {
        this.listener({ code, message });
      } catch {
        // A broken diagnostic listener must not break telemetry either.
      }
    }
  }

  count(code: string): number {
    return this.entries.get(code)?.count ?? 0;
  }

  list(): Diagnostic[] {
    return [...this.entries.values()].map((d) => ({ ...d }));
  }
}
