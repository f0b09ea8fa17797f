import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
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
    const detail = errors.slice(0, 5).map((e) => `${e.path || "/"}: ${e.message}`).join("; ");
    super(detail ? `${message}: ${detail}` : message);
    this.name = "AtifValidationError";
    this.errors = errors;
  }
}

// Compiled once, on first use: compiling is the expensive part of ajv.
let compiled: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    compiled = ajv.compile(ATIF_SCHEMA);
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
  if (!validate(doc)) {
    const raw = validate.errors ?? [];
    const specific = raw.filter((e) => !SUMMARY_KEYWORDS.has(e.keyword));
    for (const e of specific.length > 0 ? specific : raw) add(toViolation(e));
  }
  for (const v of checkTrajectoryRules(doc)) add(v);
  return { valid: errors.length === 0, errors };
}

/** Throws `AtifValidationError` listing every violation when `doc` is not valid ATIF v1.7. */
export function assertValidAtif(doc: unknown): void {
  const result = validateAtif(doc);
  if (!result.valid) throw new AtifValidationError("invalid ATIF document", result.errors);
}
