import type { JsonObject } from "../events/json.js";

/**
 * The parts of the Standard Schema interface (standardschema.dev) relaytrace reads, written out
 * here so the package needs no dependency for it. Zod 4, ArkType 2 and Valibot (through
 * `@valibot/to-json-schema`'s `toStandardJsonSchema`) implement it.
 */
export interface StandardSchemaLike<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema: how the schema is declared to the provider. */
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** The type a Standard Schema validates to. */
export type StandardOutput<S> = S extends StandardSchemaLike<unknown, infer O> ? O : never;

export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null && typeof (props as { validate?: unknown }).validate === "function";
}

/**
 * The JSON Schema a Standard Schema declares (its input side, draft-07, `$schema` dropped), for
 * the provider. A Standard Schema without the JSON Schema extension is a TypeError that says how
 * to get one.
 */
export function jsonSchemaOf(name: string, schema: StandardSchemaLike): JsonObject {
  const props = schema["~standard"];
  if (!props.jsonSchema) {
    throw new TypeError(
      `defineTool: tool ${name}'s ${props.vendor} schema cannot describe itself as JSON Schema (no ~standard.jsonSchema); ` +
        (props.vendor === "valibot" ? "wrap it with toStandardJsonSchema from @valibot/to-json-schema, " : "") +
        "or pass a JSON Schema object as inputSchema",
    );
  }
  let converted: Record<string, unknown>;
  try {
    converted = props.jsonSchema.input({ target: "draft-07" });
  } catch (err) {
    throw new TypeError(
      `defineTool: tool ${name}'s ${props.vendor} schema could not be converted to JSON Schema: ` +
        (err instanceof Error ? err.message : String(err)),
      { cause: err },
    );
  }
  const { $schema: _dropped, ...rest } = converted;
  return JSON.parse(JSON.stringify(rest)) as JsonObject;
}

function pathText(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string {
  if (!path || path.length === 0) return "/";
  return path.map((p) => `/${String(typeof p === "object" ? p.key : p)}`).join("");
}

/** Validates with the Standard Schema: the parsed value, or the message naming the first failing path. */
export async function validateStandard(schema: StandardSchemaLike, args: unknown): Promise<{ value: unknown } | { error: string }> {
  const result = await schema["~standard"].validate(args);
  if (result.issues === undefined) return { value: (result as { value: unknown }).value };
  const first = result.issues[0];
  return { error: `${pathText(first?.path)} ${first?.message ?? "is invalid"}` };
}
