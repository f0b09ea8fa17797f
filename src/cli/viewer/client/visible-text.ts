// Characters that reorder or hide text (bidi embeddings, overrides and isolates, directional
// marks, line and paragraph separators) and the C0/C1 controls other than the line end and tab.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(ch: string): string {
  return "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0");
}

/**
 * Text from a recording made visible: every character that would reorder or hide what follows
 * (U+202E makes `exe.txt` read `txt.exe`) shows as its escape, e.g. `\u202e`, so a name cannot
 * disguise itself.
 */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, escapeOne);
}
