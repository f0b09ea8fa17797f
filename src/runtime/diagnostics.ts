import { redactUrlsInText } from "../wire/urls.js";
import type { Diagnostic } from "./types.js";

/** Counts problems by code instead of throwing them into the app; keeps the latest message. */
export class DiagnosticCounter {
  private readonly entries = new Map<string, Diagnostic>();

  constructor(private readonly listener?: (d: Diagnostic) => void) {}

  record(code: string, message: string): void {
    // Messages name endpoints; a URL's userinfo and query values never reach a diagnostic.
    message = redactUrlsInText(message);
    let entry = this.entries.get(code);
    if (entry) {
      entry.count++;
      entry.message = message;
    } else {
      entry = { code, message, count: 1 };
      this.entries.set(code, entry);
    }
    if (this.listener) {
      try {
        this.listener({ code, message, count: entry.count });
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
