import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { escapeControlCharacters } from "./control-characters.js";
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

/** Levels drawn with indentation; deeper spans are tagged `[depth N]` at this indentation. */
export const MAX_DRAWN_DEPTH = 64;

/**
 * An ASCII tree of spans by parentage: `name (KIND, STATUS) key=value`, children by start time.
 * Control characters in names and values are escaped (`\x1b`), so a foreign file cannot drive the terminal.
 */
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
  // An explicit stack, not recursion: a file of 20,000 nested scopes is a 20,000-deep tree.
  const stack: { span: ReadableSpan; prefix: string; branch: string; last: boolean; depth: number }[] = [];
  const roots = (children.get(undefined) ?? []).sort(order);
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ span: roots[i]!, prefix: "", branch: "", last: true, depth: 0 });
  while (stack.length > 0) {
    const { span, prefix, branch, last, depth } = stack.pop()!;
    const deep = depth > MAX_DRAWN_DEPTH ? `[depth ${depth}] ` : "";
    lines.push(prefix + branch + deep + describe(span, keys, options.durations === true));
    // Past MAX_DRAWN_DEPTH the indentation stops growing (else output is quadratic in depth); a depth tag says where we are.
    const inner = depth >= MAX_DRAWN_DEPTH ? prefix : prefix + (branch === "" ? "" : last ? "   " : "│  ");
    const kids = (children.get(span.spanContext().spanId) ?? []).sort(order);
    const events = options.events === false ? [] : span.events;
    events.forEach((e, i) => {
      const lastLine = i === events.length - 1 && kids.length === 0;
      lines.push(`${inner}${lastLine ? "└─" : "├─"} • ${escapeControlCharacters(e.name)}`);
    });
    for (let i = kids.length - 1; i >= 0; i--) {
      const lastKid = i === kids.length - 1;
      stack.push({ span: kids[i]!, prefix: inner, branch: lastKid ? "└─ " : "├─ ", last: lastKid, depth: depth + 1 });
    }
  }
  return lines.join("\n");
}

function describe(span: ReadableSpan, keys: readonly string[], durations: boolean): string {
  let text = `${escapeControlCharacters(span.name)} (${kindName(span.kind)}, ${statusName(span.status.code)})`;
  if (span.parentSpanContext?.isRemote) text += " [remote parent]";
  if (durations) text += ` ${((microsOf(span.endTime) - microsOf(span.startTime)) / 1000).toFixed(3)}ms`;
  for (const key of keys) {
    const value = span.attributes[key];
    if (value !== undefined) text += ` ${key}=${escapeControlCharacters(Array.isArray(value) ? JSON.stringify(value) : String(value))}`;
  }
  return text;
}
