import type { AttributeValue, Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { ProjectionName } from "./projection.js";

/** Copy the last value of attribute `key` to `alias` when `alias` is not already set. */
export interface AttributeMapping {
  key: string;
  alias: string;
}

/** The attribute-control options as the exporter receives them (validated here). */
export interface AttributeControlOptions {
  attributeMappings?: readonly AttributeMapping[];
  promoteMetadataPrefixes?: readonly string[];
}

// Namespaces owned by the projections and the standards they follow; metadata never lands there.
const RESERVED_PREFIXES = [
  "error.",
  "exception.",
  "gen_ai.",
  "input.",
  "llm.",
  "openinference.",
  "output.",
  "server.",
  "service.",
  "session.",
  "tool.",
  "tool_call.",
  "user.",
];

/**
 * The optional attribute controls (aliases and metadata promotion). Built only when at least one option is set, so an exporter
 * without them keeps a single `undefined` check per span.
 */
export class AttributeControls {
  private constructor(
    private readonly mappings: readonly AttributeMapping[],
    private readonly prefixes: readonly string[],
    private readonly reserved: readonly string[],
    private readonly counter: DiagnosticCounter,
  ) {}

  /** Validates the options (a `TypeError` naming the option) and returns undefined when nothing applies. */
  static create(
    options: AttributeControlOptions,
    projection: ProjectionName,
    namespace: string,
    counter: DiagnosticCounter,
  ): AttributeControls | undefined {
    const mappings = validateMappings(options.attributeMappings);
    const prefixes = validatePrefixes(options.promoteMetadataPrefixes);
    // gen_ai writes standards-only attributes: aliases are ignored there.
    const active = projection === "gen_ai" ? [] : mappings;
    if (active.length === 0 && prefixes.length === 0) return undefined;
    return new AttributeControls(active, prefixes, [...RESERVED_PREFIXES, `${namespace}.`], counter);
  }

  /** Scope span at finish: promote start then end metadata (end wins), then apply the aliases. */
  finishScope(attrs: Attributes, startMetadata: Json | undefined, endMetadata: Json | undefined): void {
    if (this.prefixes.length > 0) {
      const promoted: Attributes = {};
      this.collect(promoted, startMetadata);
      this.collect(promoted, endMetadata);
      // Everything already present was written by the projection and is never overwritten.
      for (const key of Object.keys(promoted)) if (!(key in attrs)) attrs[key] = promoted[key];
    }
    this.applyMappings(attrs);
  }

  /** Mark span events and mark spans get the aliases only. */
  applyMappings(attrs: Attributes): void {
    for (const { key, alias } of this.mappings) {
      const value = attrs[key];
      if (value !== undefined && !(alias in attrs)) attrs[alias] = value;
    }
  }

  private collect(into: Attributes, metadata: Json | undefined): void {
    if (!isJsonObject(metadata)) return;
    for (const key of Object.keys(metadata)) {
      if (!this.promotable(key)) continue;
      const value = attributeValueOf(metadata[key]);
      if (value === undefined) {
        this.counter.record(
          `otel.metadata_promotion_value_unsupported.${key}`,
          `metadata ${JSON.stringify(key)} is not a scalar or a homogeneous scalar array; not promoted`,
        );
        continue;
      }
      into[key] = value;
    }
  }

  private promotable(key: string): boolean {
    if (key === "metadata") return false;
    if (!this.prefixes.some((p) => key.startsWith(p))) return false;
    return !this.reserved.some((r) => key.startsWith(r));
  }
}

/** A scalar or homogeneous scalar array as an attribute value; undefined when unsupported. */
function attributeValueOf(value: Json | undefined): AttributeValue | undefined {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (!Array.isArray(value)) return undefined;
  if (value.length === 0) return [] as string[];
  const kind = typeof value[0];
  if (kind !== "string" && kind !== "boolean" && kind !== "number") return undefined;
  for (const item of value) {
    if (typeof item !== kind) return undefined;
    if (kind === "number" && !Number.isFinite(item as number)) return undefined;
  }
  return [...value] as string[] | number[] | boolean[]; // a copy: the span must not alias event data
}

function validateMappings(value: unknown): AttributeMapping[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError("OtelExporter option attributeMappings must be an array of {key, alias}");
  return value.map((entry: unknown, i) => {
    const key = isRecord(entry) ? entry["key"] : undefined;
    const alias = isRecord(entry) ? entry["alias"] : undefined;
    if (typeof key !== "string" || key === "" || typeof alias !== "string" || alias === "") {
      throw new TypeError(`OtelExporter option attributeMappings[${i}] must have non-empty string key and alias`);
    }
    return { key, alias };
  });
}

function validatePrefixes(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError("OtelExporter option promoteMetadataPrefixes must be an array of strings");
  return value.map((entry: unknown, i) => {
    if (typeof entry !== "string" || entry === "") {
      throw new TypeError(`OtelExporter option promoteMetadataPrefixes[${i}] must be a non-empty string`);
    }
    return entry;
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
