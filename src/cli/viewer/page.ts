import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { viewerClientScript } from "./client-bundle.js";
import type { ViewDoc } from "./model.js";
import type { Json } from "../../events/json.js";
import { jsonText } from "../../events/json-text.js";
import { VIEWER_CSS } from "./styles.js";

/** The page's script: the viewer's browser modules (client/), bundled into one. */
export const VIEWER_SCRIPT = viewerClientScript();

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64");
}

/**
 * No network of any kind: everything is denied except this exact script and stylesheet (by
 * hash) and inline images; the embedded data is a JSON block, which is never executed.
 */
export const VIEWER_CSP =
  `default-src 'none'; script-src 'sha256-${sha256(VIEWER_SCRIPT)}'; style-src 'sha256-${sha256(VIEWER_CSS)}'; ` +
  "img-src data:; base-uri 'none'; form-action 'none'";

/** JSON that cannot end its `<script>` element or open a comment: every `<` is escaped. */
export function embeddableJson(value: unknown): string {
  // Without recursion: recorded data can nest deeper than V8's JSON.stringify can follow.
  return jsonText(value as Json)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page in pieces, so a large document is written without one giant string. */
export function* viewerPageChunks(doc: ViewDoc): Generator<string> {
  yield `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n`;
  yield `<meta http-equiv="Content-Security-Policy" content="${VIEWER_CSP}">\n`;
  yield `<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="generator" content="relaytrace view">\n`;
  yield `<title>${escapeHtml(doc.title)} — relaytrace</title>\n<style>${VIEWER_CSS}</style>\n</head>\n<body>\n`;
  yield `<div id="relaytrace-viewer"></div>\n<script type="application/json" id="relaytrace-data">`;
  // The long lists (spans, the Diff tab's steps) a thousand items a piece: no one string holds them all.
  const { spans, diff, ...rest } = doc;
  yield embeddableJson(rest).slice(0, -1);
  if (diff !== undefined) {
    const { steps, ...summary } = diff;
    yield `,"diff":${embeddableJson(summary).slice(0, -1)},"steps":[`;
    yield* listChunks(steps);
    yield "]}";
  }
  yield `,"spans":[`;
  yield* listChunks(spans);
  yield `]}</script>\n<script>${VIEWER_SCRIPT}</script>\n</body>\n</html>\n`;
}

/** The items of a list as embedded JSON, comma-separated, a thousand to a piece. */
function* listChunks(items: readonly unknown[]): Generator<string> {
  for (let i = 0; i < items.length; i += 1000) {
    const part = items
      .slice(i, i + 1000)
      .map((item) => embeddableJson(item))
      .join(",");
    yield i === 0 ? part : `,${part}`;
  }
}

export function renderViewerPage(doc: ViewDoc): string {
  return [...viewerPageChunks(doc)].join("");
}

/** Writes the page, honouring the file stream's backpressure. */
export async function writeViewerPage(doc: ViewDoc, path: string): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  const failed = once(out, "error").then(([error]) => {
    throw error;
  });
  failed.catch(() => undefined);
  for (const chunk of viewerPageChunks(doc)) {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await Promise.race([once(out, "drain"), failed]);
  }
  out.end();
  await Promise.race([once(out, "finish"), failed]);
  return bytes;
}
