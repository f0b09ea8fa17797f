import { redactUrlsInText } from "../../src/wire/urls.js";

/** One counted failure kind, as every exporter reports it. */
export interface ExporterDiagnostic {
  code: string;
  message: string;
  count: number;
}

/** Counts failures by code; keeps the latest message because it is the most useful one to show. */
export class DiagnosticCounter {
  private readonly entries = new Map<string, ExporterDiagnostic>();

  add(code: string, message: string, count = 1): void {
    // Messages name endpoints; a URL's userinfo and query values never reach a diagnostic.
    message = redactUrlsInText(message);
    const entry = this.entries.get(code);
    if (entry === undefined) this.entries.set(code, { code, message, count });
    else {
      entry.count += count;
      entry.message = message;
    }
  }

  count(code: string): number {
    return this.entries.get(code)?.count ?? 0;
  }

  snapshot(): ExporterDiagnostic[] {
    return [...this.entries.values()].map((entry) => ({ ...entry }));
  }
}
