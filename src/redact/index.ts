export { redactPII } from "./redact-pii.js";
export type { PiiRedactor, RedactPiiOptions, RedactionTarget } from "./redact-pii.js";
export type { PiiKind } from "./patterns.js";
export { PII_KINDS, luhnValid } from "./patterns.js";
export type { RedactionMode } from "./string-redactor.js";
export { DROPPED, maskToken } from "./string-redactor.js";
export { MAX_WALK_DEPTH, UNCHECKED_MARKER } from "./walk.js";
