import type { AtofWarning } from "../events/atof-errors.js";
import { SKIPPED_LINE, TORN_LAST_LINE } from "../events/atof-reader.js";

/**
 * The one rule every command that reads ATOF follows: a torn last line (no line end, not complete
 * JSON: a writer stopped mid-line) is a crash artifact, skipped with this warning; a bad line
 * anywhere else is an error, unless `--lenient` skips it with this warning too.
 */
export function readWarningLine(file: string, warning: AtofWarning): string | undefined {
  if (warning.code !== TORN_LAST_LINE && warning.code !== SKIPPED_LINE) return undefined;
  return `${file}:${warning.lineNo}: ${warning.message}`;
}

/** The help text's wording of that rule. */
export const LENIENT_HELP =
  "skip bad lines in an ATOF file with a warning instead of failing (a torn last line is always skipped with a warning)";
