let instances = 0;

/**
 * A subscriber name unique to one exporter instance, so several exporters of one kind (a file
 * and a stream ATOF sink, an in-memory and an OTLP span exporter) can share a runtime.
 */
export function uniqueSubscriberName(kind: string): string {
  instances += 1;
  return `${kind}#${instances}`;
}
