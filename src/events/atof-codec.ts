import { AtofParseError, UnsupportedAtofVersion, type AtofWarning } from "./atof-errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json.js";
import { sharedJsonPieces, sharedJsonText } from "./json-text.js";
import { parseTimestamp } from "./timestamp.js";
import {
  ATOF_VERSION,
  CANONICAL_EVENT,
  MARK_KEY_ORDER,
  SCOPE_KEY_ORDER,
  type AtofEvent,
  type DataSchema,
  type MarkEvent,
  type ScopeEvent,
} from "./types.js";

const SCOPE_KEYS: ReadonlySet<string> = new Set(SCOPE_KEY_ORDER);
const MARK_KEYS: ReadonlySet<string> = new Set(MARK_KEY_ORDER);

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
      ',"atof_version":' +
      j(e.atof_version) +
      ',"uuid":' +
      j(e.uuid) +
      ',"parent_uuid":' +
      j(e.parent_uuid) +
      ',"timestamp":' +
      j(e.timestamp) +
      ',"name":' +
      j(e.name) +
      ',"attributes":' +
      j(e.attributes ?? []) +
      ',"category":' +
      j(e.category) +
      ',"category_profile":' +
      j(e.category_profile) +
      ',"data":' +
      (sharedData ? sharedJsonText(e.data) : j(e.data)) +
      ',"data_schema":' +
      j(e.data_schema) +
      ',"metadata":' +
      j(e.metadata) +
      unknownKeys(e, SCOPE_KEYS) +
      "}"
    );
  }
  const m: MarkEvent = event;
  return (
    '{"kind":' +
    j(m.kind) +
    ',"atof_version":' +
    j(m.atof_version) +
    ',"uuid":' +
    j(m.uuid) +
    ',"parent_uuid":' +
    j(m.parent_uuid) +
    ',"timestamp":' +
    j(m.timestamp) +
    ',"name":' +
    j(m.name) +
    ',"category":' +
    j(m.category) +
    ',"category_profile":' +
    j(m.category_profile) +
    ',"data":' +
    j(m.data) +
    ',"data_schema":' +
    j(m.data_schema) +
    ',"metadata":' +
    j(m.metadata) +
    unknownKeys(m, MARK_KEYS) +
    "}"
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : `a ${typeof value}`;
}

function checkVersion(raw: JsonObject, lineNo: number): string {
  if (!("atof_version" in raw)) throw new AtofParseError(lineNo, "atof_version is missing");
  const version = raw.atof_version;
  if (typeof version !== "string") {
    throw new AtofParseError(lineNo, `atof_version must be a "MAJOR.MINOR" string, got ${describe(version)}`);
  }
  if (!/^0\.\d+/.test(version)) throw new UnsupportedAtofVersion(lineNo, version);
  return version;
}

function requireString(raw: JsonObject, key: string, lineNo: number, nonEmpty: boolean): string {
  if (!(key in raw)) throw new AtofParseError(lineNo, `${key} is missing`);
  const value = raw[key];
  if (typeof value !== "string" || (nonEmpty && value.length === 0)) {
    throw new AtofParseError(lineNo, `${key} must be a ${nonEmpty ? "non-empty " : ""}string, got ${describe(value)}`);
  }
  return value;
}

function readParent(raw: JsonObject, lineNo: number): string | null {
  if (!("parent_uuid" in raw)) throw new AtofParseError(lineNo, "parent_uuid is missing (write null for a root)");
  const parent = raw.parent_uuid;
  if (parent === null) return null;
  if (typeof parent !== "string" || parent.length === 0) {
    throw new AtofParseError(lineNo, `parent_uuid must be a non-empty string or null, got ${describe(parent)}`);
  }
  return parent;
}

function readTimestamp(raw: JsonObject, lineNo: number): string | number {
  if (!("timestamp" in raw)) throw new AtofParseError(lineNo, "timestamp is missing");
  const value = raw.timestamp;
  try {
    parseTimestamp(value);
  } catch (err) {
    throw new AtofParseError(lineNo, `bad timestamp: ${(err as Error).message}`);
  }
  // The original form is kept so that re-serialization is lossless.
  return value as string | number;
}

function readProfile(raw: JsonObject, lineNo: number): JsonObject | null {
  const profile = raw.category_profile;
  if (profile === undefined || profile === null) return null;
  if (!isJsonObject(profile)) {
    throw new AtofParseError(lineNo, `category_profile must be an object or null, got ${describe(profile)}`);
  }
  return profile;
}

function readDataSchema(raw: JsonObject, lineNo: number): DataSchema | null {
  const schema = raw.data_schema;
  if (schema === undefined || schema === null) return null;
  if (!isJsonObject(schema) || typeof schema.name !== "string" || typeof schema.version !== "string") {
    throw new AtofParseError(lineNo, 'data_schema must be {"name": string, "version": string} or null');
  }
  return schema as unknown as DataSchema;
}

function readAttributes(raw: JsonObject, lineNo: number): string[] {
  if (!("attributes" in raw)) throw new AtofParseError(lineNo, "attributes is missing on a scope event (write [] when empty)");
  const attrs = raw.attributes;
  if (!Array.isArray(attrs) || attrs.some((a) => typeof a !== "string")) {
    throw new AtofParseError(lineNo, `attributes must be an array of strings, got ${describe(attrs)}`);
  }
  return attrs as string[];
}

function readMarkCategory(raw: JsonObject, lineNo: number): string | null {
  const category = raw.category;
  if (category === undefined || category === null) return null;
  if (typeof category !== "string") throw new AtofParseError(lineNo, `category must be a string or null, got ${describe(category)}`);
  return category;
}

/** Copies keys this version does not define, after the known ones, so they round-trip. */
function keepUnknown(target: object, raw: JsonObject, known: ReadonlySet<string>): void {
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue;
    // defineProperty, not assignment: a "__proto__" key from the wire must stay plain data.
    Object.defineProperty(target, key, { value: raw[key], enumerable: true, writable: true, configurable: true });
  }
}

function warnCustom(category: string | null, profile: JsonObject | null, lineNo: number, warnings?: AtofWarning[]): void {
  if (category !== "custom" || typeof profile?.subtype === "string") return;
  warnings?.push({
    lineNo,
    code: "atof.custom_without_subtype",
    message: `line ${lineNo}: category "custom" without a string category_profile.subtype (kept as is)`,
  });
}

/**
 * Parses one ATOF line. Accepts both timestamp forms and foreign ids (no UUID syntax check), keeps
 * unknown keys; throws `AtofParseError` (or `UnsupportedAtofVersion`) naming `lineNo` and the problem.
 * Non-fatal findings are pushed to `warnings` when given.
 */
export function parseAtofLine(line: string, lineNo = 1, warnings?: AtofWarning[]): AtofEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new AtofParseError(lineNo, `not valid JSON (${(err as Error).message})`);
  }
  if (!isJsonObject(raw)) throw new AtofParseError(lineNo, `not a JSON object, got ${describe(raw)}`);
  const atofVersion = checkVersion(raw, lineNo);
  if (!("kind" in raw)) throw new AtofParseError(lineNo, 'kind is missing (expected "scope" or "mark")');
  const kind = raw.kind;
  if (kind !== "scope" && kind !== "mark") {
    throw new AtofParseError(lineNo, `kind must be "scope" or "mark", got ${describe(kind)}`);
  }

  if (kind === "scope") {
    if (!("scope_category" in raw))
      throw new AtofParseError(lineNo, 'scope_category is missing on a scope event (expected "start" or "end")');
    const scopeCategory = raw.scope_category;
    if (scopeCategory !== "start" && scopeCategory !== "end") {
      throw new AtofParseError(lineNo, `scope_category must be "start" or "end", got ${describe(scopeCategory)}`);
    }
    const uuid = requireString(raw, "uuid", lineNo, true);
    const parentUuid = readParent(raw, lineNo);
    const timestamp = readTimestamp(raw, lineNo);
    const name = requireString(raw, "name", lineNo, false);
    const attributes = readAttributes(raw, lineNo);
    if (!("category" in raw)) throw new AtofParseError(lineNo, "category is missing on a scope event");
    const category = requireString(raw, "category", lineNo, false);
    const profile = readProfile(raw, lineNo);
    const event: ScopeEvent = {
      kind,
      scope_category: scopeCategory,
      atof_version: atofVersion,
      uuid,
      parent_uuid: parentUuid,
      timestamp,
      name,
      attributes,
      category,
      category_profile: profile,
      data: (raw.data ?? null) as Json,
      data_schema: readDataSchema(raw, lineNo),
      metadata: (raw.metadata ?? null) as Json,
    };
    keepUnknown(event, raw, SCOPE_KEYS);
    warnCustom(category, profile, lineNo, warnings);
    return event;
  }

  const uuid = requireString(raw, "uuid", lineNo, true);
  const parentUuid = readParent(raw, lineNo);
  const timestamp = readTimestamp(raw, lineNo);
  const name = requireString(raw, "name", lineNo, false);
  const category = readMarkCategory(raw, lineNo);
  const profile = readProfile(raw, lineNo);
  const mark: MarkEvent = {
    kind,
    atof_version: atofVersion,
    uuid,
    parent_uuid: parentUuid,
    timestamp,
    name,
    category,
    category_profile: profile,
    data: (raw.data ?? null) as Json,
    data_schema: readDataSchema(raw, lineNo),
    metadata: (raw.metadata ?? null) as Json,
  };
  keepUnknown(mark, raw, MARK_KEYS);
  warnCustom(category, profile, lineNo, warnings);
  return mark;
}
