import { randomBytes } from "node:crypto";
import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { AtofEvent } from "../events/types.js";
import type { EventFields, EventNameSanitizer, EventSanitizer, RegistrationOptions } from "../runtime/types.js";
import type { PiiKind, PiiPattern } from "./patterns.js";
import { builtinPatterns, PII_KINDS, userPattern } from "./patterns.js";
import type { RedactionMode } from "./string-redactor.js";
import { StringRedactor } from "./string-redactor.js";
import { TraceRoots } from "./trace-roots.js";
import { redactJson } from "./walk.js";

export interface RedactPiiOptions {
  /**
   * `mask` (default): `[REDACTED:email]`; `hash`: `[email:<12 hex>]`, stable within a trace; `drop`: the whole string
   * becomes `[redacted]`.
   */
  mode?: RedactionMode;
  /** Built-in shapes to look for (default: all of email, phone, card, apiKey). */
  kinds?: readonly PiiKind[];
  /** More patterns; a bare RegExp is reported as kind `custom`. */
  extraPatterns?: readonly (RegExp | { name: string; pattern: RegExp })[];
  /** Sanitizer priority; default 1,000,000 so redaction runs after (inside) the app's own sanitizers. */
  priority?: number;
  /** Make the registrations scope-local. */
  scope?: RegistrationOptions["scope"];
}

/** The part of a runtime `redactPII` registers on. */
export interface RedactionTarget {
  registerMarkSanitizer(name: string, priority: number, fn: EventSanitizer, options?: RegistrationOptions): () => boolean;
  registerScopeStartSanitizer(name: string, priority: number, fn: EventSanitizer, options?: RegistrationOptions): () => boolean;
  registerScopeEndSanitizer(name: string, priority: number, fn: EventSanitizer, options?: RegistrationOptions): () => boolean;
  registerEventNameSanitizer(name: string, priority: number, fn: EventNameSanitizer, options?: RegistrationOptions): () => boolean;
}

export interface PiiRedactor {
  /** Registers mark, scope-start, scope-end and event-name sanitizers; returns one function that removes them all. */
  register(runtime: RedactionTarget): () => void;
  /** The sanitizer itself, for registering by hand. */
  readonly sanitizer: EventSanitizer;
  /** Redacts one value outside any trace (hash mode keys it to `traceKey`, default ""). */
  redactValue(value: Json, traceKey?: string): Json;
}

const MODES: readonly RedactionMode[] = ["mask", "hash", "drop"];
let instances = 0;

/**
 * A ready PII sanitizer set. It walks `data`, `metadata` and `category_profile` (so the tool
 * result annotation too) of every event, replacing matches in every string and object key, and
 * every event name. Attributes, ids and `data_schema` are not touched.
 * Throws `TypeError` at construction for bad options, never while telemetry runs.
 */
export function redactPII(options: RedactPiiOptions = {}): PiiRedactor {
  const mode = options.mode ?? "mask";
  if (!MODES.includes(mode)) throw new TypeError(`redactPII: mode must be one of ${MODES.join(", ")}; got ${String(mode)}`);
  if (options.kinds !== undefined && !Array.isArray(options.kinds)) throw new TypeError("redactPII: kinds must be an array");
  if (options.extraPatterns !== undefined && !Array.isArray(options.extraPatterns)) {
    throw new TypeError("redactPII: extraPatterns must be an array");
  }
  const patterns: PiiPattern[] = [
    ...builtinPatterns(options.kinds ?? PII_KINDS),
    ...(options.extraPatterns ?? []).map((entry, i) => userPattern(entry, i)),
  ];
  const priority = options.priority ?? 1_000_000;
  const strings = new StringRedactor(patterns, mode, randomBytes(32));
  const roots = new TraceRoots();
  const id = ++instances;

  const redactValue = (value: Json, traceKey = ""): Json => redactJson(value, (s) => strings.redact(s, traceKey));

  const sanitizer: EventSanitizer = (event: AtofEvent, fields: EventFields) => {
    const key = mode === "hash" ? roots.rootOf(event) : "";
    const profile = fields.categoryProfile === null ? null : redactValue(fields.categoryProfile, key);
    return {
      data: redactValue(fields.data, key),
      categoryProfile: isJsonObject(profile) ? (profile as JsonObject) : null,
      metadata: redactValue(fields.metadata, key),
    };
  };

  return {
    sanitizer,
    redactValue,
    register(runtime: RedactionTarget): () => void {
      const name = `relaytrace.redact_pii.${id}`;
      const scope = options.scope ? { scope: options.scope } : undefined;
      const removers = [
        runtime.registerScopeStartSanitizer(name, priority, sanitizer, scope),
        runtime.registerScopeEndSanitizer(name, priority, sanitizer, scope),
        runtime.registerMarkSanitizer(name, priority, sanitizer, scope),
        // Event names too: a tool name the model made up (`forward_to_ada@example.com`) becomes a span name.
        runtime.registerEventNameSanitizer(
          name,
          priority,
          (eventName, event) => strings.redact(eventName, mode === "hash" ? roots.rootOf(event) : ""),
          scope,
        ),
      ];
      return () => {
        for (const remove of removers) remove();
      };
    },
  };
}
