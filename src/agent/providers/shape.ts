/** Small readers for untrusted provider JSON: they never throw, they return undefined. */

export type Dict = Record<string, unknown>;

export function isDict(value: unknown): value is Dict {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function nonEmptyStr(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A finite non-negative token count, else 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

export function hasNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Describes a value's JSON type for error messages ("null", "array", "string"...). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Parses tool-call argument text into an object; `{}` when empty, invalid or not an object. */
export function parseArgs(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isDict(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Concatenates the `text` of content parts (`[{type:"text", text}]`), or returns a string content as is. */
export function flattenText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const part of content) {
    if (typeof part === "string") out += part;
    else if (isDict(part) && typeof part.text === "string") out += part.text;
  }
  return out;
}

/** A provider error payload's message, when the reply is an error envelope (`{error: {...}}` / `{type:"error"}`). */
export function errorEnvelopeMessage(body: Dict): string | undefined {
  const err = body.error;
  if (typeof err === "string") return err;
  if (isDict(err)) {
    const msg = str(err.message);
    const type = str(err.type) ?? str(err.code);
    if (msg !== undefined) return type !== undefined ? `${type}: ${msg}` : msg;
    return JSON.stringify(err).slice(0, 200);
  }
  return undefined;
}
