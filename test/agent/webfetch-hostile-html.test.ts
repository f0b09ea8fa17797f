import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit, type Toolkit } from "../../src/agent/index.js";
import { htmlToText, MAX_TEXT_CHARS } from "../../src/agent/builtins/html-text.js";

/** Pages that made the old tag-stripping regular expressions take time quadratic in their length. */
const HOSTILE: Record<string, (n: number) => string> = {
  "a run of <": (n) => "<".repeat(n),
  "unclosed tags": (n) => "<a".repeat(n / 2),
  "unclosed comments": (n) => "<!--".repeat(n / 4),
  "unclosed scripts": (n) => "<script>".repeat(n / 8),
  "unclosed styles after text": (n) => "x<style ".repeat(n / 8),
  "blanks with no line end": (n) => `${" ".repeat(n)}x`,
  "tabs before many line ends": (n) => "\t \n".repeat(n / 3),
};

describe("webfetch's HTML to text: one pass, linear in the page on any input", () => {
  for (const [name, page] of Object.entries(HOSTILE)) {
    it(`${name}: the scanner's steps grow tenfold, not a hundredfold, when the page does`, () => {
      const small = htmlToText(page(110_000));
      const large = htmlToText(page(1_100_000));
      expect(small.steps).toBeLessThanOrEqual(4 * 110_000);
      expect(large.steps).toBeLessThanOrEqual(4 * 1_100_000);
      expect(large.steps).toBeLessThanOrEqual(11 * small.steps);
    });
  }

  it("keeps the text, drops tags, comments, scripts and styles; a `<` that opens no tag is text", () => {
    const page = [
      "<html><head><style>p { color: red }</style><script>if (a < b) run('</p>')</script></head>",
      "<body><!-- a <b>comment</b> -->",
      "<h1>Title</h1>   ",
      "",
      "",
      "",
      "<p>1 < 2 and 3 > 2</p>\t",
      "<SCRIPT type=x>hidden()</SCRIPT>done",
      "</body></html>",
    ].join("\n");
    expect(htmlToText(page).text).toBe("Title\n\n1 < 2 and 3 > 2\ndone");
  });
});

let server: Server;
let url: string;
let tk: Toolkit;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    if (req.url === "/angles") res.end("<".repeat(110_000));
    else res.end(`<p>${"word ".repeat(200_000)}</p>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tk = await createToolkit({ builtins: ["webfetch"] });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("webfetch against a loopback server", () => {
  it("110 KB of `<` comes back as that text", async () => {
    expect(await tk.execute("webfetch", { url: `${url}/angles` })).toEqual({ output: "<".repeat(110_000), isError: false });
  });

  it("a page with a million characters of text is cut at the size cap, with a marker saying so", async () => {
    const result = await tk.execute("webfetch", { url: `${url}/words` });
    expect(result.isError).toBe(false);
    expect(result.output.length).toBeLessThan(MAX_TEXT_CHARS + 200);
    expect(result.output).toMatch(/\n\[text truncated: the first 200000 of about 1000000 characters kept\]$/);
  });
});
