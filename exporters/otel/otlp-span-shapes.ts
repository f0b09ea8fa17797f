import type { AttributeValue } from "@opentelemetry/api";

// What the OTLP span encoders (protobuf and JSON) read of a span's attributes and instrumentation scope.

/** How deep nested array and key-value list values are written (span attributes are one level). */
export const MAX_VALUE_DEPTH = 8;

export type OtlpAttributes = Readonly<Record<string, AttributeValue | undefined>>;

export interface OtlpScope {
  name: string;
  version?: string;
  schemaUrl?: string;
  attributes?: OtlpAttributes;
  droppedAttributesCount?: number;
}
