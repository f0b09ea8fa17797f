import { createHash } from "node:crypto";

/** Longest part of a file name taken from input; the rest of the name (prefix, suffix, number) stays well under 255 bytes. */
const MAX_PART_CHARS = 120;

/**
 * A file-name part made from an id read from input: only `A-Z a-z 0-9 . _ -` survive (separators,
 * NUL and everything else become `_`), a run of dots becomes `_` (no `..`, no hidden name), and a
 * long id is cut and ended with a hash of the whole, so two long ids stay two names.
 */
export function safeFileNamePart(id: string): string {
  let part = id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/\.{2,}/g, "_");
  if (part.startsWith(".")) part = `_${part.slice(1)}`;
  if (part === "") part = "_";
  if (part.length > MAX_PART_CHARS) {
    const hash = createHash("sha256").update(id).digest("hex").slice(0, 16);
    part = `${part.slice(0, MAX_PART_CHARS - 17)}-${hash}`;
  }
  return part;
}
