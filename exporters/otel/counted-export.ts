import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";

/** ExportResultCode of @opentelemetry/core (not a direct dependency): 0 success, 1 failed. */
export interface ExportResult {
  code: number;
  error?: Error;
}

/** What a failed export of one signal is counted as. */
export interface ExportCodes {
  /** e.g. `otel.export_failed`: one per failed request. */
  failed: string;
  /** e.g. `otel.spans_not_exported`: the items a failed request carried. */
  lost?: string;
  /** e.g. `span`, for the messages. */
  what: string;
}

/**
 * Runs one export through `run`, counting a failure (and the items it carried) in `counter`
 * instead of letting it vanish or reach the app; `done` always gets a result.
 */
export function countedExport(
  run: (done: (result: ExportResult) => void) => void,
  size: number,
  done: (result: ExportResult) => void,
  counter: DiagnosticCounter,
  codes: ExportCodes,
): void {
  try {
    run((result) => {
      if (result.code !== 0) {
        counter.record(codes.failed, `${codes.what} export failed: ${result.error?.message ?? "unknown error"}`);
        if (codes.lost) counter.record(codes.lost, `${size} ${codes.what}(s) in a failed export`, size);
      }
      done(result);
    });
  } catch (error) {
    counter.recordError(codes.failed, error);
    done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) });
  }
}
