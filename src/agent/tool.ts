import type { Ajv, ValidateFunction } from "ajv";
import { createAjv } from "#schema-compiler";
import type { JsonObject } from "../events/json.js";
import type { Answer, ToolResult } from "./pending.js";
import { raceAbort } from "./race-abort.js";
import type { FromJsonSchema } from "./schema-types.js";
import { isStandardSchema, jsonSchemaOf, validateStandard, type StandardSchemaLike } from "./standard-schema.js";

/** Where a tool comes from; traced as `tool_source`, and `relay` marks a tool executed by the host. */
export type ToolSource = "mcp" | "skill" | "builtin" | "native" | "http" | "a2a" | "custom" | "relay";

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  signal: AbortSignal;
  /** Set only on the re-execution after a `waitFor` answer (or a durable resume). */
  answer?: Answer;
  /** The provider's tool-call id ("" when executed outside the loop). */
  toolCallId: string;
  /** The runtime uuid of this tool call ("" when executed outside the loop). */
  toolUuid: string;
}

/** A tool the loop can declare to the model and execute. `execute` never rejects for bad input. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly source: ToolSource;
  execute(args: Record<string, unknown>, ctx?: Partial<ToolContext>): Promise<ToolResult>;
}

/**
 * What a user tool may return: a ToolResult `{output, isError}`, a string, a runtime-style
 * `{result}`, any other JSON value (stringified), or `pending(...)`.
 */
export type ToolReturn = unknown;

/**
 * The arguments `execute` receives for an `inputSchema`: a Standard Schema's output type, the type
 * a literal JSON Schema describes, else `Record<string, unknown>`.
 */
export type ToolArgs<S> =
  S extends StandardSchemaLike<unknown, infer Output>
    ? Output
    : FromJsonSchema<S> extends infer T
      ? T extends Record<string, unknown>
        ? T
        : Record<string, unknown>
      : never;

/** What `defineTool` takes: `name` must match `TOOL_NAME_PATTERN`; `inputSchema` defaults to an empty object schema. */
export interface ToolDefinition<S extends object = JsonObject> {
  name: string;
  description: string;
  /**
   * The arguments' schema: a JSON Schema object (validated with ajv; written as a literal, it
   * types `execute`'s arguments), or a Standard Schema (zod 4, ArkType, Valibot through
   * `toStandardJsonSchema`), declared to the provider as its JSON Schema and validated by itself,
   * `execute` receiving its output.
   */
  inputSchema?: S;
  /** Default `native`, as toolnexus labels a tool defined in code. */
  source?: ToolSource;
  /**
   * Longest time one execution may take, in ms: past it the execution's signal aborts and the
   * model gets an error result saying the tool timed out (the run goes on).
   */
  timeoutMs?: number;
  execute(args: ToolArgs<S>, ctx: ToolContext): ToolReturn | Promise<ToolReturn>;
}

// One validator instance, made by the first tool with a JSON Schema: schemas compile once per
// tool, at definition time, and an app that defines none never loads ajv.
let ajv: Ajv | undefined;

export const EMPTY_OBJECT_SCHEMA: JsonObject = { type: "object", properties: {} };

/** Tool names both providers accept; anything else is refused by the API on the first call, so it is refused at definition. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Throws a TypeError unless `name` is a tool name both providers accept. */
export function checkToolName(name: unknown, what: string): asserts name is string {
  if (typeof name !== "string" || name === "") throw new TypeError(`${what}: a tool needs a non-empty string name`);
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(`${what}: invalid tool name ${JSON.stringify(name)} — it must match ${TOOL_NAME_PATTERN.source}`);
  }
}

/** Compiles a tool's argument schema once; a schema that does not compile is a TypeError at definition. */
export function compileArgsValidator(name: string, schema: JsonObject): ValidateFunction {
  const validators = (ajv ??= createAjv({ strict: false, allErrors: false }));
  try {
    return validators.compile(schema);
  } catch (err) {
    throw new TypeError(`invalid inputSchema for tool ${name}: ${errorMessage(err)}`, { cause: err });
  }
}

/** The error result for arguments that fail the schema (naming the failing path), or undefined when they pass. */
export function argumentsError(name: string, validate: ValidateFunction, args: Record<string, unknown>): ToolResult | undefined {
  if (validate(args)) return undefined;
  const first = validate.errors?.[0];
  const where = first?.instancePath || "/";
  return { output: `invalid arguments for ${name}: ${where} ${first?.message ?? "is invalid"}`, isError: true };
}

/** Turns whatever a tool returned into a ToolResult. */
export function toToolResult(value: unknown): ToolResult {
  if (typeof value === "string") return { output: value, isError: false };
  if (value === undefined || value === null) return { output: "", isError: false };
  if (typeof value === "object" && !Array.isArray(value) && typeof (value as ToolResult).output === "string") {
    const r = value as ToolResult;
    const out: ToolResult = { output: r.output, isError: r.isError === true };
    if (r.metadata && typeof r.metadata === "object") out.metadata = r.metadata;
    return out;
  }
  if (typeof value === "object" && !Array.isArray(value) && "result" in (value as object)) {
    // A runtime-style ToolExecutionResult: its result is the payload, its annotation rides along for tracing.
    const { result: inner, annotation } = value as { result: unknown; annotation?: unknown };
    const out: ToolResult = { output: typeof inner === "string" ? inner : (JSON.stringify(inner) ?? ""), isError: false };
    if (annotation !== undefined && annotation !== null) out.annotation = annotation;
    return out;
  }
  return { output: JSON.stringify(value) ?? String(value), isError: false };
}

/**
 * The error result a throwing `execute` becomes. `error` is not enumerable: a result printed,
 * compared or serialized shows only what the model reads.
 */
function thrownResult(output: string, error: unknown): ToolResult {
  return Object.defineProperty({ output, isError: true }, "error", { value: error, enumerable: false, writable: true, configurable: true });
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function fullContext(ctx: Partial<ToolContext> | undefined): ToolContext {
  const out: ToolContext = {
    signal: ctx?.signal ?? new AbortController().signal,
    toolCallId: ctx?.toolCallId ?? "",
    toolUuid: ctx?.toolUuid ?? "",
  };
  if (ctx?.answer) out.answer = ctx.answer;
  return out;
}

/**
 * Defines a tool. Throws a TypeError for a missing/invalid name, a missing `execute` or a bad
 * schema. Arguments are validated against `inputSchema` before `execute`; invalid arguments
 * become an error result naming the failing path, and a throwing `execute` becomes an error
 * result with its message, so the run goes on.
 */
export function defineTool<const S extends object = JsonObject>(definition: ToolDefinition<S>): Tool {
  if (typeof definition !== "object" || definition === null) throw new TypeError("defineTool: expected a tool definition object");
  checkToolName(definition.name, "defineTool");
  if (typeof definition.execute !== "function") throw new TypeError(`defineTool: tool ${definition.name} needs an execute function`);
  const name = definition.name;
  const timeoutMs = checkTimeout(name, definition.timeoutMs);
  const check = argumentsCheck(name, definition.inputSchema);
  const run = definition.execute as (args: unknown, ctx: ToolContext) => ToolReturn | Promise<ToolReturn>;
  return Object.freeze({
    name,
    description: definition.description,
    inputSchema: check.jsonSchema,
    source: definition.source ?? "native",
    async execute(raw: Record<string, unknown>, ctx?: Partial<ToolContext>): Promise<ToolResult> {
      const checked = await check.validate(raw);
      if ("invalid" in checked) return checked.invalid;
      const args = checked.args;
      const full = fullContext(ctx);
      const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
      if (deadline) full.signal = AbortSignal.any([full.signal, deadline]);
      try {
        // Raced against the signal, so a tool that ignores it still ends on time.
        const running = Promise.resolve(run(args, full));
        return toToolResult(deadline ? await raceAbort(running, full.signal) : await running);
      } catch (err) {
        // An abort by the run is not a tool failure: let the run see it.
        if (ctx?.signal?.aborted) throw ctx.signal.reason;
        if (deadline?.aborted) {
          const output = `tool ${name} timed out after ${timeoutMs} ms`;
          return thrownResult(output, Object.assign(new Error(output), { name: "TimeoutError" }));
        }
        return thrownResult(errorMessage(err), err);
      }
    },
  });
}

interface ArgumentsCheck {
  jsonSchema: JsonObject;
  validate(args: Record<string, unknown>): Promise<{ args: unknown } | { invalid: ToolResult }>;
}

/** The schema declared to the provider and the check run before `execute`, for either kind of `inputSchema`. */
function argumentsCheck(name: string, schema: object | undefined): ArgumentsCheck {
  if (isStandardSchema(schema)) {
    const jsonSchema = jsonSchemaOf(name, schema);
    return {
      jsonSchema,
      async validate(args) {
        const r = await validateStandard(schema, args);
        return "error" in r ? { invalid: { output: `invalid arguments for ${name}: ${r.error}`, isError: true } } : { args: r.value };
      },
    };
  }
  const jsonSchema = (schema ?? EMPTY_OBJECT_SCHEMA) as JsonObject;
  const validator = compileArgsValidator(name, jsonSchema);
  return {
    jsonSchema,
    async validate(args) {
      const invalid = argumentsError(name, validator, args);
      return invalid ? { invalid } : { args };
    },
  };
}

function checkTimeout(name: string, timeoutMs: unknown): number | undefined {
  if (timeoutMs === undefined) return undefined;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`defineTool: tool ${name} option "timeoutMs" must be a positive number of milliseconds (got ${String(timeoutMs)})`);
  }
  return timeoutMs;
}
