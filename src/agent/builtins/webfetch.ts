import { defineTool, type Tool } from "../tool.js";
import { failure } from "./files.js";
import { htmlToText } from "./html-text.js";

const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * The built-in `webfetch` tool: HTTP GET of an http(s) URL, the body as text or markdown (tags
 * stripped) or raw html; non-2xx is an error `HTTP <status>`. It reaches any host the process can,
 * so it is never in the `builtins: true` set: name it to get it.
 */
export function webfetchTool(): Tool {
  return defineTool({
    name: "webfetch",
    description: "HTTP GET a URL and return its body as text, markdown, or html.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        url: { type: "string", description: "URL to fetch" },
        format: { type: "string", enum: ["text", "markdown", "html"], description: "Response format (default markdown)" },
        timeout: { type: "number", description: "Timeout in seconds (default 30)" },
      },
      required: ["url"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        return { output: `webfetch: invalid URL ${JSON.stringify(String(args.url))}`, isError: true };
      }
      if (url.protocol !== "http:" && url.protocol !== "https:")
        return { output: `webfetch: only http and https URLs are fetched (got ${url.protocol})`, isError: true };
      const seconds = typeof args.timeout === "number" && args.timeout > 0 ? args.timeout : 30;
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(seconds * 1000)]);
      try {
        const res = await fetch(url, { method: "GET", signal });
        if (!res.ok) {
          await res.body?.cancel();
          return { output: `HTTP ${res.status}`, isError: true };
        }
        const chunks: Uint8Array[] = [];
        let size = 0;
        for await (const chunk of res.body ?? []) {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) return { output: `webfetch: body larger than ${MAX_BODY_BYTES} bytes`, isError: true };
          chunks.push(chunk);
        }
        const body = Buffer.concat(chunks).toString("utf8");
        return args.format === "html" ? body : htmlToText(body).text;
      } catch (err) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return failure("webfetch", err);
      }
    },
  });
}
