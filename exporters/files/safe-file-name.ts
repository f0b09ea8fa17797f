import { createHash } from "node:crypto";

/** Longest part of a file name taken from input; the rest of the name (prefix, suffix, number) stays well under 255 bytes. */
const MAX_PART_CHARS = 120;
const HASH_CHARS = 12;

/**
 * A file-name part made from an id read from input. An id of `A-Z a-z 0-9 . _ -` only, not
 * starting with a dot, without `..` and at most MAX_PART_CHARS long, is used as it is. Any other
 * id has the offending characters replaced by `_` (separators and NUL included; a run of dots
 * too), is cut to length, and is ended with a hash of the whole id: two ids that read alike once
 * cleaned (`a/b`, `a_b`) still get two names.
 */
export function safeFileNamePart(id: string): string {
  let part = id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/\.{2,}/g, "_");
  if (part.startsWith(".")) part = `_${part.slice(1)}`;
  if (part === id && part !== "" && part.length <= MAX_PART_CHARS) return part;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, HASH_CHARS);
  return `${part.slice(0, MAX_PART_CHARS - HASH_CHARS - 1)}-${hash}`;
}
