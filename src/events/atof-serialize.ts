import { sharedJsonPieces, sharedJsonText } from "./json-text.js";
import { ATOF_VERSION, CANONICAL_EVENT, MARK_KEYS, SCOPE_KEYS, type AtofEvent, type MarkEvent, type ScopeEvent } from "./types.js";

// Writing ATOF lines: one event to one line of JSON text, keys in relaytrace's fixed order.

/** JSON text of a value; `undefined` (an absent key) is written as explicit `null`. */
function j(value: unknown): string {
  if (value === null) return "null";
  const text = JSON.stringify(value);
  return text === undefined ? "null" : text;
}

/** JSON text of a string field: printable ASCII without `"` or `\\` (ids, names, categories) is quoted as it is. */
function stringText(value: unknown): string {
  if (typeof value !== "string") return j(value);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(value);
  }
  return '"' + value + '"';
}

/**
 * The JSON text of a stretch of a runtime event's line that depends only on a few of its fields,
 * for the last values those fields held. Ids, names and payloads repeat from event to event: a
 * scope's start and end share its uuid, parent, name, flags, category and category profile,
 * siblings their parent, every OK end its status metadata. Strings compare by value, and a
 * runtime event's payloads are deep-frozen, so the same objects always give the same text. A
 * line built from a few such stretches is a few string pieces rather than two dozen, which V8
 * then has fewer of to allocate and to flatten when the line is encoded.
 */
class LastStretch {
  private a: unknown = LastStretch;
  private b: unknown = LastStretch;
  private c: unknown = LastStretch;
  private d: unknown = LastStretch;
  text = "";

  /** Whether `text` is the stretch for these values; if not, `set` it. */
  holds(a: unknown, b?: unknown, c?: unknown, d?: unknown): boolean {
    return a === this.a && b === this.b && c === this.c && d === this.d;
  }

  set(text: string, a: unknown, b?: unknown, c?: unknown, d?: unknown): string {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    return (this.text = text);
  }
}

const stretches = {
  uuid: new LastStretch(),
  /** `,"parent_uuid":…,"timestamp":"` */
  parent: new LastStretch(),
  /** `","name":…,"data":` */
  middle: new LastStretch(),
  /** `,"data_schema":…}`: a start and an end carry different metadata (none, then the status), so each phase keeps its own. */
  startTail: new LastStretch(),
  endTail: new LastStretch(),
};

const START_HEAD = `{"kind":"scope","scope_category":"start","atof_version":"${ATOF_VERSION}","uuid":`;
const END_HEAD = `{"kind":"scope","scope_category":"end","atof_version":"${ATOF_VERSION}","uuid":`;

/**
 * A runtime-delivered scope event: the same text as `JSON.stringify(event)` (its keys are exactly
 * the known ones, in order, none undefined), with the fixed keys as constant text. Its timestamp
 * is the runtime's own RFC 3339 text, which needs no escaping.
 */
function canonicalScopeLine(e: ScopeEvent, head: string, tail: LastStretch): string {
  return (
    canonicalScopeHead(e, head) +
    // An LLM body is rendered by the OTel projections too: its JSON text is shared with them.
    (e.category === "llm" ? sharedJsonText(e.data) : j(e.data)) +
    canonicalScopeTail(e, tail)
  );
}

/** canonicalScopeLine up to its `data` value. */
function canonicalScopeHead(e: ScopeEvent, head: string): string {
  const { uuid, parent, middle } = stretches;
  const attributes = e.attributes;
  return (
    head +
    (uuid.holds(e.uuid) ? uuid.text : uuid.set(stringText(e.uuid), e.uuid)) +
    (parent.holds(e.parent_uuid)
      ? parent.text
      : parent.set(',"parent_uuid":' + stringText(e.parent_uuid) + ',"timestamp":"', e.parent_uuid)) +
    (e.timestamp as string) +
    (middle.holds(e.name, attributes, e.category, e.category_profile)
      ? middle.text
      : middle.set(
          '","name":' +
            stringText(e.name) +
            (attributes === undefined || attributes.length === 0 ? ',"attributes":[]' : ',"attributes":' + j(attributes)) +
            ',"category":' +
            stringText(e.category) +
            ',"category_profile":' +
            j(e.category_profile) +
            ',"data":',
          e.name,
          attributes,
          e.category,
          e.category_profile,
        ))
  );
}

/** canonicalScopeLine after its `data` value. */
function canonicalScopeTail(e: ScopeEvent, tail: LastStretch): string {
  return tail.holds(e.data_schema, e.metadata)
    ? tail.text
    : tail.set(',"data_schema":' + j(e.data_schema) + ',"metadata":' + j(e.metadata) + "}", e.data_schema, e.metadata);
}

/** Appends keys the reader preserved (or a caller added) after the known ones, in their original order. */
function unknownKeys(event: object, known: ReadonlySet<string>): string {
  const keys = Object.keys(event);
  // Common case: exactly the known keys, nothing to append.
  if (keys.length <= known.size && keys.every((key) => known.has(key))) return "";
  let out = "";
  const record = event as Record<string, unknown>;
  for (const key of keys) {
    if (known.has(key)) continue;
    const text = JSON.stringify(record[key]);
    if (text !== undefined) out += "," + JSON.stringify(key) + ":" + text;
  }
  return out;
}

/**
 * serializeEvent's line, as pieces to be written one after another when it is a runtime LLM
 * event (its body as the per-message texts the transcript already holds, see
 * recurringJsonPieces), else as one string. A writer that copies the pieces into its own buffer
 * never builds a late turn's whole line as one string.
 */
export function serializeEventPieces(event: AtofEvent): string | string[] {
  if (event.category !== "llm") return serializeEvent(event);
  if (
    event.kind === "scope" &&
    (event as { [CANONICAL_EVENT]?: boolean })[CANONICAL_EVENT] === true &&
    event.atof_version === ATOF_VERSION &&
    typeof event.timestamp === "string" &&
    (event.scope_category === "start" || event.scope_category === "end")
  ) {
    const start = event.scope_category === "start";
    const pieces = [canonicalScopeHead(event, start ? START_HEAD : END_HEAD)];
    sharedJsonPieces(event.data, pieces);
    pieces.push(canonicalScopeTail(event, start ? stretches.startTail : stretches.endTail));
    return pieces;
  }
  return serializeEvent(event);
}

/**
 * One ATOF JSON line (no trailing newline). Known keys come in relaytrace's fixed order with explicit
 * nulls; built by concatenation because this runs once per event on the exporter hot path.
 */
export function serializeEvent(event: AtofEvent): string {
  const canonical = (event as { [CANONICAL_EVENT]?: boolean })[CANONICAL_EVENT] === true;
  if (canonical && event.kind === "scope" && event.atof_version === ATOF_VERSION && typeof event.timestamp === "string") {
    const phase = event.scope_category;
    if (phase === "start") return canonicalScopeLine(event, START_HEAD, stretches.startTail);
    if (phase === "end") return canonicalScopeLine(event, END_HEAD, stretches.endTail);
  }
  // An LLM body is rendered by the OTel projections too: its JSON text is shared with them.
  const sharedData = canonical && event.kind === "scope" && event.category === "llm";
  if (canonical && !sharedData) return JSON.stringify(event);
  if (event.kind === "scope") {
    const e: ScopeEvent = event;
    return (
      '{"kind":"scope","scope_category":' +
      j(e.scope_category) +
      identityText(e) +
      ',"attributes":' +
      j(e.attributes ?? []) +
      payloadText(e, sharedData ? sharedJsonText(e.data) : j(e.data), SCOPE_KEYS)
    );
  }
  const m: MarkEvent = event;
  return '{"kind":' + j(m.kind) + identityText(m) + payloadText(m, j(m.data), MARK_KEYS);
}

/** A line's keys from `atof_version` through `name`, which scopes and marks share (not a runtime event's fast path). */
function identityText(e: AtofEvent): string {
  return (
    ',"atof_version":' +
    j(e.atof_version) +
    ',"uuid":' +
    j(e.uuid) +
    ',"parent_uuid":' +
    j(e.parent_uuid) +
    ',"timestamp":' +
    j(e.timestamp) +
    ',"name":' +
    j(e.name)
  );
}

/** The rest of a line from `category` on: the payload fields, then keys the reader preserved, and the closing brace. */
function payloadText(e: AtofEvent, dataText: string, known: ReadonlySet<string>): string {
  return (
    ',"category":' +
    j(e.category) +
    ',"category_profile":' +
    j(e.category_profile) +
    ',"data":' +
    dataText +
    ',"data_schema":' +
    j(e.data_schema) +
    ',"metadata":' +
    j(e.metadata) +
    unknownKeys(e, known) +
    "}"
  );
}
