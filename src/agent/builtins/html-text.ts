/** Longest text returned from a page; the rest is cut with a marker saying how much. */
export const MAX_TEXT_CHARS = 200_000;
/** Longest page scanned; the rest is not looked at (the fetch itself stops at 5 MiB). */
export const MAX_HTML_CHARS = 5 * 1024 * 1024;

/** Elements whose content is not page text: skipped up to their closing tag. */
const RAW_TEXT_ELEMENTS = ["script", "style"] as const;

export interface HtmlText {
  text: string;
  /** Positions the scanner looked at: at most a small constant times the page's length. */
  steps: number;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Whether `html` holds `word` (lowercase ASCII) at `at`, in any case. */
function matchesAt(html: string, at: number, word: string): boolean {
  if (at + word.length > html.length) return false;
  for (let i = 0; i < word.length; i++) if ((html.charCodeAt(at + i) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

/**
 * The text of an HTML page: tags, comments, scripts and styles dropped, trailing blanks removed
 * from each line, blank-line runs collapsed to one, at most MAX_TEXT_CHARS. One pass over the
 * page that never goes back (no regular expression runs on page content): any page, a run of
 * `<`, an unclosed comment or script, takes time linear in its length. A `<` not followed by a
 * letter, `/`, `!` or `?` is text, as browsers read it.
 */
export function htmlToText(page: string): HtmlText {
  const html = page.length > MAX_HTML_CHARS ? page.slice(0, MAX_HTML_CHARS) : page;
  const n = html.length;
  const parts: string[] = [];
  let steps = 0;
  let textStart = 0;
  let i = 0;
  /** The position just past the first `end` (lowercase) at or after `from`, or the end of the page. */
  const skipPast = (from: number, end: string): number => {
    for (let j = from; j < n; j++) {
      steps++;
      if (matchesAt(html, j, end)) return j + end.length;
    }
    return n;
  };
  while (i < n) {
    steps++;
    if (html.charCodeAt(i) !== 0x3c /* < */) {
      i++;
      continue;
    }
    const next = i + 1 < n ? html.charCodeAt(i + 1) : -1;
    const comment = next === 0x21 /* ! */ && html.startsWith("--", i + 2);
    if (!comment && !isLetter(next) && next !== 0x2f /* / */ && next !== 0x21 && next !== 0x3f /* ? */) {
      i++; // a lone `<` is text
      continue;
    }
    if (i > textStart) parts.push(html.slice(textStart, i));
    if (comment) {
      i = skipPast(i + 4, "-->");
    } else {
      const raw = RAW_TEXT_ELEMENTS.find((name) => matchesAt(html, i + 1, name));
      i = skipPast(i + 1, ">");
      if (raw !== undefined) i = skipPast(skipPast(i, `</${raw}`), ">");
    }
    textStart = i;
  }
  if (n > textStart) parts.push(html.slice(textStart, n));
  const tidy = tidyLines(parts.join(""));
  steps += tidy.steps;
  return { text: tidy.text, steps };
}

/** Trailing spaces and tabs cut from each line, at most one blank line in a row, trimmed, bounded. */
function tidyLines(text: string): HtmlText {
  const lines: string[] = [];
  let steps = 0;
  let chars = 0;
  let blankRun = 0;
  let start = 0;
  while (start <= text.length && chars <= MAX_TEXT_CHARS) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let last = end;
    while (
      last > start &&
      (text.charCodeAt(last - 1) === 0x20 || text.charCodeAt(last - 1) === 0x09 || text.charCodeAt(last - 1) === 0x0d)
    ) {
      last--;
      steps++;
    }
    steps += end - start + 1;
    const line = text.slice(start, last);
    start = end + 1;
    if (line === "") {
      if (lines.length > 0 && ++blankRun <= 1) lines.push("");
      continue;
    }
    blankRun = 0;
    lines.push(line);
    chars += line.length + 1;
  }
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  let out = lines.join("\n").trim();
  if (out.length > MAX_TEXT_CHARS || start <= text.length) {
    const kept = out.slice(0, MAX_TEXT_CHARS);
    out = `${kept}\n[text truncated: the first ${kept.length} of about ${text.length} characters kept]`;
  }
  return { text: out, steps };
}
