// "#otel-signals" under the "workerd", "worker" and "browser" conditions (wrangler, and bundlers
// for browsers): no import of OpenTelemetry's logs and metrics SDKs, so a Worker that sends only
// spans does not carry them. `import "relaytrace/exporters/signals"` in the app provides them.
// Leaf module: it imports only signal-sdk.ts, whose state is a global (see package.json "imports").
import { providedSignalSdk, type SignalSdk } from "./signal-sdk.js";

/** The `import "..."` that puts the signals into a Worker or browser bundle. */
export const SIGNALS_OPT_IN: string | undefined = "relaytrace/exporters/signals";

function provided<K extends keyof SignalSdk>(part: K): Promise<SignalSdk[K]> {
  const sdk = providedSignalSdk();
  if (sdk === undefined) {
    return Promise.reject(new Error(`the logs and metrics signals are not in this bundle: add import "${SIGNALS_OPT_IN}" to the app once`));
  }
  return Promise.resolve(sdk[part]);
}

export const importSdkLogs = (): Promise<SignalSdk["sdkLogs"]> => provided("sdkLogs");
export const importSdkMetrics = (): Promise<SignalSdk["sdkMetrics"]> => provided("sdkMetrics");
export const importLogsOtlpHttp = (): Promise<SignalSdk["logsOtlpHttp"]> => provided("logsOtlpHttp");
export const importLogsOtlpProto = (): Promise<SignalSdk["logsOtlpProto"]> => provided("logsOtlpProto");
export const importMetricsOtlpHttp = (): Promise<SignalSdk["metricsOtlpHttp"]> => provided("metricsOtlpHttp");
export const importMetricsOtlpProto = (): Promise<SignalSdk["metricsOtlpProto"]> => provided("metricsOtlpProto");
