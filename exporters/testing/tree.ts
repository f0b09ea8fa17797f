import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { kindName, microsOf, statusName } from "./snapshot.js";

/** Options of `toTree`. */
export interface TreeOptions {
  /** Show each span's duration (off by default: durations change between runs). */
  durations?: boolean;
  /** Attribute keys printed after a span when present. */
  attributes?: string[];
  /** Print span events as `• name` lines (default true). */
  events?: boolean;
}

/** Attribute keys `toTree` prints by default: span kind, operation, error type and orphan marks. */
export const DEFAULT_TREE_ATTRIBUTES: readonly string[] = [
  "openinference.span.kind",
  "gen_ai.operation.name",
  "error.type",
  "nemo_relay.mark.orphan",
];

/** An ASCII tree of spans by parentage: `name (KIND, STATUS) key=value`, children by start time. */
export function toTree(spans: readonly ReadableSpan[], options: TreeOptions = {}): string {
  const keys = options.attributes ?? DEFAULT_TREE_ATTRIBUTES;
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    const list = children.get(key) ?? [];
    list.push(span);
    children.set(key, list);
  }
  const order = (a: ReadableSpan, b: ReadableSpan) => microsOf(a.startTime) - microsOf(b.startTime) || a.name.localeCompare(b.name);
  const lines: string[] = [];
  const visit = (span: ReadableSpan, prefix: string, branch: string, last: boolean) => {
    lines.push(prefix + branch + describe(span, keys, options.durations === true));
    const inner = prefix + (branch === "" ? "" : last ? "   " : "│  ");
    const kids = (children.get(span.spanContext().spanId) ?? []).sort(order);
    const events = options.events === false ? [] : span.events;
    events.forEach((e, i) => {
      const lastLine = i === events.length - 1 && kids.length === 0;
      lines.push(`${inner}${lastLine ? "└─" : "├─"} • ${e.name}`);
    });
    kids.forEach((kid, i) => visit(kid, inner, i === kids.length - 1 ? "└─ " : "├─ ", i === kids.length - 1));
  };
  for (const root of (children.get(undefined) ?? []).sort(order)) visit(root, "", "", true);
  return lines.join("\n");
}

function describe(span: ReadableSpan, keys: readonly string[], durations: boolean): string {
  let text = `${span.name} (${kindName(span.kind)}, ${statusName(span.status.code)})`;
  if (span.parentSpanContext?.isRemote) text += " [remote parent]";
  if (durations) text += ` ${((microsOf(span.endTime) - microsOf(span.startTime)) / 1000).toFixed(3)}ms`;
  for (const key of keys) {
    const value = span.attributes[key];
    if (value !== undefined) text += ` ${key}=${Array.isArray(value) ? JSON.stringify(value) : String(value)}`;
  }
  return text;
}
