import { redactUrlsInText } from "../../src/wire/urls.js";

/** One counted failure kind, as reported by `diagnostics()`. */
export interface OtelDiagnostic {
  code: string;
  message: string;
  count: number;
}

/** Counts telemetry failures instead of throwing them into the application. */
export class DiagnosticCounter {
  private readonly entries = new Map<string, OtelDiagnostic>();

  count(code: string, message: string, by = 1): void {
    // Messages name endpoints; a URL's userinfo and query values never reach a diagnostic.
    message = redactUrlsInText(message);
    const entry = this.entries.get(code);
    if (entry) {
      entry.count += by;
      entry.message = message;
    } else {
      this.entries.set(code, { code, message, count: by });
    }
  }

  countError(code: string, error: unknown): void {
    this.count(code, error instanceof Error ? error.message : String(error));
  }

  list(): OtelDiagnostic[] {
    return [...this.entries.values()].map((d) => ({ ...d }));
  }
}
