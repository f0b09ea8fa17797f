import { checkOptionKeys } from "./option-keys.js";

// Options declared once: each options object of the public API is one declaration — a check per
// key, typed against the options interface — from which the key list, the type checks and the
// error messages all derive. (Events import nothing of ours, so every layer may use it.)

/** One option's check: undefined when the value is fine, else what it must be ("a string"). */
export type OptionCheck = ((value: unknown) => string | undefined) & { readonly required?: true };

/** A check for every key of `T`, no more and no fewer: the compiler keeps the two in step. */
export type OptionsSpec<T> = { readonly [K in keyof Required<T>]: OptionCheck };

/** A value as an error message shows it. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : typeof value === "function" ? "a function" : String(value);
}

/** A check from a test and what the value must be when the test fails. */
export const check =
  (expected: string, ok: (value: unknown) => boolean): OptionCheck =>
  (value) =>
    ok(value) ? undefined : expected;

const isPlainObject = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);

/** The checks options are declared with. */
export const is = {
  /** Any value (JSON data is checked where it is copied). */
  anything: (() => undefined) as OptionCheck,
  string: check("a string", (v) => typeof v === "string"),
  nonEmptyString: check("a non-empty string", (v) => typeof v === "string" && v !== ""),
  boolean: check("a boolean", (v) => typeof v === "boolean"),
  function: check("a function", (v) => typeof v === "function"),
  object: check("an object", isPlainObject),
  objectOrNull: check("an object or null", (v) => v === null || isPlainObject(v)),
  stringList: check("a list of strings", (v) => Array.isArray(v) && v.every((s) => typeof s === "string")),
  /** A scope or call handle, or `{ uuid }`. */
  handle: check("a scope handle ({ uuid })", (v) => isPlainObject(v) && typeof (v as { uuid?: unknown }).uuid === "string"),
  signal: check(
    "an AbortSignal",
    (v) => typeof (v as AbortSignal | null)?.aborted === "boolean" && typeof (v as AbortSignal).addEventListener === "function",
  ),
  timestamp: check(
    "a timestamp (epoch ms, a Date or an RFC 3339 string)",
    (v) => (typeof v === "number" && Number.isFinite(v)) || typeof v === "string" || v instanceof Date,
  ),
  finiteNumber: check("a finite number", (v) => typeof v === "number" && Number.isFinite(v)),
  /** A plain object (JSON data inside is checked where it is copied). */
  jsonObject: check("a JSON object", isPlainObject),
  /** A list of strings (each entry is checked where it is used). */
  list: check("an array of strings", Array.isArray),
  /** A list (each entry is checked where it is used). */
  array: check("an array", Array.isArray),
  nonNegativeNumber: check("a non-negative finite number", (v) => typeof v === "number" && Number.isFinite(v) && v >= 0),
  positiveInteger: check("a positive integer", (v) => Number.isInteger(v) && (v as number) > 0),
  dataSchema: check(
    "{ name: string, version: string }",
    (v) =>
      isPlainObject(v) && typeof (v as { name?: unknown }).name === "string" && typeof (v as { version?: unknown }).version === "string",
  ),
  oneOf: (...values: readonly unknown[]): OptionCheck =>
    check(values.length === 1 ? JSON.stringify(values[0]) : `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`, (v) =>
      values.includes(v),
    ),
  /** The key must be present (and pass `inner`). */
  required: (inner: OptionCheck): OptionCheck => Object.assign((v: unknown) => inner(v), { required: true as const }),
  /** A finite number at least `min`. */
  numberAtLeast: (min: number): OptionCheck =>
    check(`a finite number >= ${min}`, (v) => typeof v === "number" && Number.isFinite(v) && v >= min),
  /** An object whose values are all strings (HTTP headers). */
  stringRecord: check("an object of strings", (v) => isPlainObject(v) && Object.values(v as object).every((x) => typeof x === "string")),
  /** An object whose values are strings, numbers or booleans (OpenTelemetry resource attributes). */
  scalarRecord: check(
    "an object of strings, numbers or booleans",
    (v) => isPlainObject(v) && Object.values(v as object).every((x) => ["string", "number", "boolean"].includes(typeof x)),
  ),
  /** An object with a method `name` (an SDK extension such as a SpanExporter). */
  objectWith: (what: string, method: string): OptionCheck =>
    check(what, (v) => typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[method] === "function"),
  /** A nested options object, checked against its own declaration (which names its keys `<parent>.<key>`). */
  nested: (declaration: OptionsDeclaration<object>): OptionCheck => {
    return (v) => {
      if (!isPlainObject(v)) return "an object";
      declaration.check(v); // a wrong key or value inside throws, naming it `<parent>.<key>`
      return undefined;
    };
  },
  either: (a: OptionCheck, b: OptionCheck): OptionCheck => {
    return (v) => {
      const first = a(v);
      return first === undefined || b(v) === undefined ? undefined : `${first} or ${b(v)}`;
    };
  },
} as const;

/**
 * How a declaration reports a wrong value: the error (default: a TypeError), how a key is named
 * (default: as it is; `prefix` names a nested bag's keys `<prefix><key>`), and what an unknown
 * key's message adds after the key (`context`, e.g. " for a file sink").
 */
export interface DeclarationSettings {
  error?: (message: string) => Error;
  label?: (key: string) => string;
  prefix?: string;
  context?: string;
}

/** An options object's declaration: its keys, and the one check of a value against them. */
export class OptionsDeclaration<T extends object> {
  readonly keys: ReadonlySet<string>;
  private readonly checks: ReadonlyMap<string, OptionCheck>;
  private readonly required: readonly string[];
  private readonly fail: (message: string) => Error;
  private readonly label: (key: string) => string;
  private readonly where: { prefix?: string; context?: string };

  constructor(
    /** The API call the options belong to (`withScope`), the default owner in messages. */
    readonly owner: string,
    spec: OptionsSpec<T>,
    settings: DeclarationSettings = {},
  ) {
    this.checks = new Map(Object.entries(spec) as [string, OptionCheck][]);
    this.keys = new Set(this.checks.keys());
    this.required = [...this.checks].filter(([, c]) => c.required === true).map(([key]) => key);
    this.fail = settings.error ?? ((message) => new TypeError(message));
    const prefix = settings.prefix ?? "";
    this.label = settings.label ?? ((key) => prefix + key);
    this.where = { prefix, context: settings.context ?? "" };
  }

  /**
   * Throws a TypeError, naming `owner` (default: the declaration's), when `options` is neither
   * undefined nor an object, has a key not declared (with the closest declared one), or has a
   * value of the wrong type. An undefined value is the same as an absent key.
   */
  check(options: unknown, owner: string = this.owner): void {
    if (options === undefined && this.required.length === 0) return;
    if (!isPlainObject(options)) {
      const what = this.where.prefix ? this.where.prefix.slice(0, -1) : "options";
      throw this.fail(`${owner}: ${what} must be an object (got ${describeValue(options)})`);
    }
    for (const key in options as object) {
      const check = this.checks.get(key);
      if (check === undefined) {
        // An own key not declared: throws, naming it (with the closest declared key).
        if (Object.prototype.hasOwnProperty.call(options, key)) checkOptionKeys(owner, options as object, this.keys, this.where);
        continue;
      }
      const value = (options as Record<string, unknown>)[key];
      if (value === undefined) continue;
      const expected = check(value);
      if (expected !== undefined) throw this.fail(`${owner}: ${this.label(key)} must be ${expected} (got ${describeValue(value)})`);
    }
    for (const key of this.required) {
      if ((options as Record<string, unknown>)[key] === undefined)
        throw this.fail(`${owner}: ${this.label(key)} must be ${this.checks.get(key)!(undefined)}`);
    }
  }

  /** `check` as a value: the error, or undefined when the options are fine. */
  error(options: unknown, owner: string = this.owner): TypeError | undefined {
    try {
      this.check(options, owner);
      return undefined;
    } catch (error) {
      return error as TypeError;
    }
  }
}

/** Declares an options object: `declareOptions<ScopeOptions>("withScope", { category: is.string, … })`. */
export function declareOptions<T extends object>(
  owner: string,
  spec: OptionsSpec<T>,
  settings?: DeclarationSettings,
): OptionsDeclaration<T> {
  return new OptionsDeclaration(owner, spec, settings);
}
