import type { SpanExporter } from "@opentelemetry/sdk-trace";
import { FetchTransport } from "./fetch-transport.js";
import type { OtlpSpanExportConfig } from "./otlp-http-settings.js";
import { RetryingTransport } from "./otlp-retry.js";
import { OtlpSpanDelivery, type SpanEncoding } from "./otlp-span-delivery.js";

// What bundles for browsers and Workers get in place of node-span-export.ts (package.json
// "browser"): the same delivery and retry policy over `fetch`. As in OpenTelemetry's browser
// exporters, settings come from code only (a browser has no environment variables; a Worker's are
// bindings, which the app passes in).

const DEFAULT_URL = "http://localhost:4318/v1/traces";
const DEFAULT_TIMEOUT_MILLIS = 10000;
const CONCURRENCY_LIMIT = 30;

/** A span exporter sending `encoding` with `contentType` where `config` says, over `fetch`. */
export function spanExport(config: OtlpSpanExportConfig, contentType: string, encoding: SpanEncoding): SpanExporter {
  const headers: Record<string, string> = { ...config.headers, "Content-Type": contentType };
  const transport = new RetryingTransport(new FetchTransport(config.url ?? DEFAULT_URL, headers));
  return new OtlpSpanDelivery(encoding, transport, config.timeoutMillis ?? DEFAULT_TIMEOUT_MILLIS, CONCURRENCY_LIMIT);
}
