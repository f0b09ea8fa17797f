import type { DiagnosticCounter } from "../wire/diagnostics.js";
import type { Exporter } from "./exporter.js";

/** How long `runtime.shutdown()` waits in all, by default, before it returns anyway. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;

function label(exporter: Exporter): string {
  return (exporter as { constructor?: { name?: string } }).constructor?.name || "exporter";
}

/**
 * Runs `work` on every exporter after `flush`, and returns when all are done or when
 * `timeoutMs` has passed, whichever is first: one deadline for the whole call, whatever each
 * exporter's own timeouts and retries would add up to. What was still running is counted as
 * `<code>` in the diagnostics; failures as `<failedCode>`.
 */
export async function withinDeadline(
  flush: () => Promise<void>,
  exporters: readonly Exporter[],
  work: (exporter: Exporter) => Promise<void>,
  timeoutMs: number,
  diagnostics: DiagnosticCounter,
  codes: { timeout: string; failed: string; verb: string },
): Promise<void> {
  const running = new Set(exporters);
  const all = (async () => {
    await flush();
    await Promise.all(
      exporters.map(async (exporter) => {
        try {
          await work(exporter);
        } catch (error) {
          diagnostics.recordError(codes.failed, error);
        } finally {
          running.delete(exporter);
        }
      }),
    );
  })();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([all.then(() => "done" as const), deadline]);
    if (outcome === "timeout") {
      const still = [...running].map(label).join(", ") || "delivery to subscribers";
      diagnostics.record(codes.timeout, `${codes.verb} gave up after ${timeoutMs} ms; still running: ${still}`);
    }
  } finally {
    clearTimeout(timer);
  }
}
