// C0 and C1 controls (ESC, BEL, CR, LF, DEL…) and the Unicode characters that reorder or hide
// text on a terminal (bidi overrides and isolates, line and paragraph separators).
// eslint-disable-next-line no-control-regex -- these control characters are exactly what it escapes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Text from a file someone else wrote, made safe to print: every control character becomes a
 * visible escape (`\x1b`, `\r`, `\u202e`), so a name cannot retitle the terminal, clear the
 * screen or fake a line of output.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** The same for multi-line output we compose: our own line ends stay, everything else is escaped. */
export function escapeControlCharactersInLines(text: string): string {
  return text.split("\n").map(escapeControlCharacters).join("\n");
}
