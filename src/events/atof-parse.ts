import { AtofParseError, UnsupportedAtofVersion, type AtofWarning } from "./atof-errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json.js";
import { parseTimestamp } from "./timestamp.js";
import { MARK_KEYS, SCOPE_KEYS, type AtofEvent, type DataSchema, type MarkEvent, type ScopeEvent } from "./types.js";

// Reading ATOF lines: one line of JSON text to an event, checked field by field with the line's number in every error.

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
