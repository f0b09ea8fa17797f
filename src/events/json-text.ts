import type { Json } from "./json.js";
import { isLongLived } from "./long-lived-json.js";

interface Frame {
  /** The keys still to write (objects) or the items (arrays). */
  entries: readonly (readonly [string | null, Json | undefined])[];
  next: number;
  close: string;
  indent: string;
  depth: number;
}

/** Levels indented by the pretty form; deeper levels keep that indentation, else the text grows with the square of the depth. */
export const MAX_INDENTED_DEPTH = 64;

/**
 * `JSON.stringify(value, null, indent)` without recursion: V8's own overflows the stack on a few
 * thousand nested levels (an ATIF trajectory with deeply nested subagents). Yields the text in
 * pieces, so a caller can write it out without building one string. Same output for JSON values;
 * `undefined` object members are skipped and `undefined` array items become null, as in JSON.
 * Past MAX_INDENTED_DEPTH levels the indentation stops growing (still the same JSON value).
 */
export function* jsonTextChunks(value: Json, indent = 0): Generator<string> {
  const step = " ".repeat(indent);
  const newline = indent > 0 ? "\n" : "";
  const colon = indent > 0 ? ": " : ":";
  const stack: Frame[] = [];
  const open = (item: Json | undefined, at: string, depth: number): string | undefined => {
    if (item === null || typeof item !== "object") return JSON.stringify(item ?? null);
    const inner = depth < MAX_INDENTED_DEPTH ? at + step : at;
    if (Array.isArray(item)) {
      if (item.length === 0) return "[]";
      stack.push({ entries: item.map((v) => [null, v] as const), next: 0, close: `${newline}${at}]`, indent: inner, depth: depth + 1 });
      return "[";
    }
    const entries = Object.entries(item).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    stack.push({ entries, next: 0, close: `${newline}${at}}`, indent: inner, depth: depth + 1 });
    return "{";
  };
  const first = open(value, "", 0);
  if (first !== undefined) yield first;
  let buffer = "";
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.entries.length) {
      stack.pop();
      buffer += frame.close;
    } else {
      const [key, item] = frame.entries[frame.next]!;
      buffer += `${frame.next > 0 ? "," : ""}${newline}${frame.indent}${key === null ? "" : JSON.stringify(key) + colon}`;
      frame.next++;
      buffer += open(item, frame.indent, frame.depth) ?? "null";
    }
    if (buffer.length >= 64 * 1024) {
      yield buffer;
      buffer = "";
    }
  }
  if (buffer.length > 0) yield buffer;
}

const deepIndents = new Map<number, string>();

/** A newline and the indentation of a member MAX_INDENTED_DEPTH + 1 levels down, which the pretty form never writes. */
function tooDeepIndent(indent: number): string {
  let needle = deepIndents.get(indent);
  if (needle === undefined) {
    needle = "\n" + " ".repeat((MAX_INDENTED_DEPTH + 1) * indent);
    if (deepIndents.size < 16) deepIndents.set(indent, needle);
  }
  return needle;
}

/**
 * The whole text of `jsonTextChunks`. V8's own `JSON.stringify` writes the same text many times
 * faster wherever it can: unindented text unless its recursion overflows the stack, indented
 * text when it nests less deeply than MAX_INDENTED_DEPTH (nearly every document). Only the rest
 * takes the stack-free path.
 */
export function jsonText(value: Json, indent = 0): string {
  if (indent === 0) {
    // Unindented text is the same at any depth: only V8's stack limit stands in the way.
    try {
      return JSON.stringify(value ?? null);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
  } else {
    // V8's text is the same unless a non-empty object or array sits MAX_INDENTED_DEPTH or more
    // levels down: then one of its members' lines is indented deeper than the pretty form goes.
    // (A newline inside a string is escaped, so every newline in the text starts an indented line.)
    // Searching the text for such a line is much cheaper than walking the value first.
    let text: string | undefined;
    try {
      text = JSON.stringify(value ?? null, null, indent);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
    if (text !== undefined && !text.includes(tooDeepIndent(indent))) return text;
  }
  let out = "";
  for (const chunk of jsonTextChunks(value, indent)) out += chunk;
  return out;
}

/**
 * JSON text of frozen objects, shared by every exporter in the process. Delivered events are
 * deep-frozen and reach every subscriber as one object, so the text of one of their payloads
 * never changes: an LLM body serialized for the ATOF line is not serialized again for the full
 * projection's `data.content` attribute. Weakly held: the texts go with their events.
 */
export const frozenJsonTexts = new WeakMap<object, string>();
/**
 * Only texts at least this long are remembered: for a small object a WeakMap entry (the set, and
 * the collector's work on it) costs more than serializing it again.
 */
export const FROZEN_TEXT_MIN_LENGTH = 1024;

function remember(value: object, text: string): void {
  if (text.length >= FROZEN_TEXT_MIN_LENGTH) frozenJsonTexts.set(value, text);
}

/** Levels of a provider body composed from its parts' texts: the body, its members, a member array's items. */
const COMPOSED_LEVELS = 2;

/** A plain object or array without its own `toJSON` (whose text is its members' or items' texts). */
function composable(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  return Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * `JSON.stringify(value)`, written from the texts of its parts where a part recurs: an object
 * the runtime marked long-lived (a transcript message, the tool list) is serialized once and its
 * text remembered whatever its size, and so is any frozen object whose text is long. The body,
 * its plain members and the items of a member array whose first item recurs are composed from
 * their parts' texts, so a conversation's history is serialized once per message, not once per
 * turn. Anything else goes to `JSON.stringify` as it is (same text: undefined, functions and
 * symbols skipped in objects and null in arrays; a cycle or BigInt throws TypeError; very deep
 * values RangeError).
 */
export function recurringJsonText(value: unknown): string {
  return partText(value, COMPOSED_LEVELS, undefined) ?? "null";
}

/**
 * Pieces at most this long are written as they are even when remembered as a composition; a
 * longer composed text is written from its parts' pieces instead.
 */
const PIECE_MAX_LENGTH = 16 * 1024;

/**
 * The text recurringJsonText returns, appended to `out` as the pieces it is composed of (the
 * per-message texts the transcript already holds, and the punctuation between them), for a
 * writer that copies them one after another into its own buffer. Written as one string, a late
 * turn's body is hundreds of KB, which V8 allocates outside its young generation and collects
 * only in full collections, on every turn, just to copy it out once.
 */
export function recurringJsonPieces(value: unknown, out: string[]): void {
  if (partText(value, COMPOSED_LEVELS, out) === undefined) out.push("null");
}

/** Appends `text` to `out` (when collecting pieces) and returns it. */
function emit(text: string | undefined, out: string[] | undefined): string | undefined {
  if (out !== undefined && text !== undefined) out.push(text);
  return text;
}

function partText(value: unknown, levels: number, out: string[] | undefined): string | undefined {
  if (typeof value !== "object" || value === null) return emit(JSON.stringify(value), out);
  const frozen = Object.isFrozen(value);
  const longLived = isLongLived(value);
  if (frozen) {
    const known = frozenJsonTexts.get(value);
    // A remembered composition is a chain of its parts: collecting pieces, a long one is walked
    // again (its parts are remembered too) rather than written whole.
    if (known !== undefined && (out === undefined || longLived || known.length <= PIECE_MAX_LENGTH || !composable(value))) {
      return emit(known, out);
    }
  }
  if (longLived) {
    const text = JSON.stringify(value);
    frozenJsonTexts.set(value, text);
    return emit(text, out);
  }
  if (!composable(value)) return emit(wholeText(value, frozen), out);
  let text: string;
  if (Array.isArray(value)) {
    if (levels < 0 || levels === COMPOSED_LEVELS || value.length === 0 || !isLongLived(value[0])) {
      return emit(wholeText(value, frozen), out);
    }
    emit("[", out);
    text = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) emit(",", out);
      const item = partText(value[i], -1, out);
      if (item === undefined) emit("null", out);
      text += (i > 0 ? "," : "") + (item ?? "null");
    }
    text += "]";
    emit("]", out);
  } else {
    // A frozen event payload's members are what the projections serialize on their own: always
    // composed at the top. Below it, and for a body still being sent, only what holds recurring
    // parts (else one flat text is cheaper to build and to write out).
    if (levels <= 0 || (!(frozen && levels === COMPOSED_LEVELS) && !holdsRecurring(value, levels))) {
      return emit(wholeText(value, frozen), out);
    }
    emit("{", out);
    text = "{";
    const record = value as Record<string, unknown>;
    // A frozen event payload's member texts are what each projection's `<ns>.*.data.<key>`
    // attributes hold: remembered whatever their size, since another exporter asks for them next.
    const shareMembers = frozen && levels === COMPOSED_LEVELS;
    for (const key of Object.keys(record)) {
      const item = record[key];
      const head = (text.length > 1 ? "," : "") + JSON.stringify(key) + ":";
      const mark = out === undefined ? 0 : out.push(head);
      const member = partText(item, levels - 1, out);
      if (member === undefined) {
        if (out !== undefined) out.length = mark - 1; // a skipped member leaves no key behind
        continue;
      }
      text += head + member;
      if (shareMembers && typeof item === "object" && item !== null && Object.isFrozen(item)) frozenJsonTexts.set(item, member);
    }
    text += "}";
    emit("}", out);
  }
  if (frozen) remember(value, text);
  return text;
}

/** Whether `value` (an object `levels` above the last composed one) holds a part partText reuses. */
function holdsRecurring(value: object, levels: number): boolean {
  if (isLongLived(value)) return true;
  if (Array.isArray(value)) return levels >= 0 && value.length > 0 && isLongLived(value[0]);
  if (levels <= 0) return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (typeof member === "object" && member !== null && holdsRecurring(member, levels - 1)) return true;
  }
  return false;
}

function wholeText(value: object, frozen: boolean): string | undefined {
  const text = JSON.stringify(value) as string | undefined;
  if (frozen && text !== undefined) remember(value, text);
  return text;
}

/**
 * `JSON.stringify(value)` of a frozen LLM event payload (`{headers, content}` or a reply),
 * written from its members' shared texts (see recurringJsonText): the members are what the
 * projections serialize on their own, one attribute per key. Anything else is stringified as is.
 * Like `JSON.stringify`, it recurses: a caller that may meet very deep values catches RangeError.
 */
export function sharedJsonText(value: Json): string {
  if (!sharedComposition(value)) return JSON.stringify(value ?? null);
  return recurringJsonText(value);
}

/** sharedJsonText appended to `out` as pieces (see recurringJsonPieces). */
export function sharedJsonPieces(value: Json, out: string[]): void {
  if (!sharedComposition(value)) out.push(JSON.stringify(value ?? null));
  else recurringJsonPieces(value, out);
}

/** Whether sharedJsonText composes `value` from its members' texts. */
function sharedComposition(value: Json): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.isFrozen(value);
}
