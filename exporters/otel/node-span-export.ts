import type { SpanExporter } from "@opentelemetry/sdk-trace";
import { NodeHttpTransport } from "./node-http-transport.js";
import { otlpHttpSettings, type OtlpSpanExportConfig } from "./otlp-http-settings.js";
import { RetryingTransport } from "./otlp-retry.js";
import { OtlpSpanDelivery, type SpanEncoding } from "./otlp-span-delivery.js";

// relaytrace's OTLP/HTTP span export in Node, Bun and Deno: OpenTelemetry's settings merge
// (code, then the `OTEL_EXPORTER_OTLP_*` variables, then the defaults) and retry policy, both
// reimplemented, over a transport that reaches Node's http module without loading what an
// ES-module import of it loads. Bundles for browsers and Workers get fetch-span-export.ts in its
// place (package.json "browser").

/** A span exporter sending `encoding` with `contentType` where `config` and the variables say. */
export function spanExport(config: OtlpSpanExportConfig, contentType: string, encoding: SpanEncoding): SpanExporter {
  const settings = otlpHttpSettings(config, contentType);
  const transport = new RetryingTransport(new NodeHttpTransport(settings));
  return new OtlpSpanDelivery(encoding, transport, settings.timeoutMillis, settings.concurrencyLimit);
}
