import type { ErrorObject, ValidateFunction } from "ajv";
import { createAjv } from "#schema-compiler";
import { isJsonObject } from "../../src/events/json.js";
import { ATIF_SCHEMA } from "./schema.js";
import { checkTrajectoryRules, type AtifViolation } from "./rules.js";

export type { AtifViolation };

/** What `validateAtif` returns: `valid`, and every violation found (empty when valid). */
export interface AtifValidationResult {
  valid: boolean;
  errors: AtifViolation[];
}

/** Thrown by the throwing paths (`assertValidAtif`, the exporter's internal checks) with every violation. */
export class AtifValidationError extends Error {
  readonly errors: AtifViolation[];
  constructor(message: string, errors: AtifViolation[] = []) {
    const detail = errors
      .slice(0, 5)
      .map((e) => `${e.path || "/"}: ${e.message}`)
      .join("; ");
    super(detail ? `${message}: ${detail}` : message);
    this.name = "AtifValidationError";
    this.errors = errors;
  }
}

/**
 * The schema for one trajectory, its subagents checked only as objects: ajv follows a recursive
 * `$ref` by recursion, so nested subagents are validated one level at a time by `validateAtif`.
 */
function oneLevelSchema(): object {
  const schema = JSON.parse(JSON.stringify(ATIF_SCHEMA)) as { definitions: { trajectory: { properties: Record<string, unknown> } } };
  schema.definitions.trajectory.properties["subagent_trajectories"] = { type: "array", items: { type: "object" } };
  return schema;
}

// Compiled once, on first use: compiling is the expensive part of ajv.
let compiled: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  if (!compiled) {
    compiled = createAjv({ allErrors: true, strict: false }).compile(oneLevelSchema());
  }
  return compiled;
}

function toViolation(error: ErrorObject): AtifViolation {
  if (error.keyword === "additionalProperties") {
    const key = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    return { path: `${error.instancePath}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, message: `unknown key "${key}"` };
  }
  return { path: error.instancePath, message: error.message ?? error.keyword };
}

// if/then/else and anyOf report a summary error beside the specific ones; the specific ones suffice.
const SUMMARY_KEYWORDS = new Set(["if", "anyOf"]);

/** Validates an ATIF v1.7 document: the JSON Schema plus the cross-field rules it cannot express (see rules.ts). Never throws. */
export function validateAtif(doc: unknown): AtifValidationResult {
  const validate = schemaValidator();
  const errors: AtifViolation[] = [];
  const seen = new Set<string>();
  const add = (v: AtifViolation): void => {
    const key = `${v.path}\u0000${v.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      errors.push(v);
    }
  };
  // One trajectory at a time with an explicit stack: nesting depth is the document's to choose.
  const stack: { node: unknown; path: string }[] = [{ node: doc, path: "" }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (!validate(node)) {
      const raw = validate.errors ?? [];
      const specific = raw.filter((e) => !SUMMARY_KEYWORDS.has(e.keyword));
      for (const e of specific.length > 0 ? specific : raw) {
        const v = toViolation(e);
        add({ path: path + v.path, message: v.message });
      }
    }
    const subs = isJsonObject(node) ? node["subagent_trajectories"] : undefined;
    if (Array.isArray(subs)) {
      for (let i = subs.length - 1; i >= 0; i--) {
        if (isJsonObject(subs[i])) stack.push({ node: subs[i], path: `${path}/subagent_trajectories/${i}` });
      }
    }
  }
  for (const v of checkTrajectoryRules(doc)) add(v);
  return { valid: errors.length === 0, errors };
}

/** Throws `AtifValidationError` listing every violation when `doc` is not valid ATIF v1.7. */
export function assertValidAtif(doc: unknown): void {
  const result = validateAtif(doc);
  if (!result.valid) throw new AtifValidationError("invalid ATIF document", result.errors);
}
