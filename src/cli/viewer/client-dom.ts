// Runs in the browser: the page embeds this function's source text (see page.ts), so it imports
// nothing and touches only the `document` it is given.
/* eslint-disable @typescript-eslint/no-explicit-any */
type El = any;

/** The page's element helpers: every piece of data becomes text or an attribute value, never markup. */
export interface ViewerDom {
  h(tag: string, attrs?: Record<string, string | number | boolean | undefined> | null, ...children: unknown[]): El;
  /** A value as readable text: strings as they are, the rest as indented JSON. */
  json(value: unknown): string;
  /** A value in a `<pre>`, cut at 200,000 characters behind a "show all" button. */
  pre(value: unknown): El;
  section(title: string, ...body: unknown[]): El;
  shortId(id: string): string;
}

export function viewerDom(document: any): ViewerDom {
  function h(tag: string, attrs?: Record<string, string | number | boolean | undefined> | null, ...children: unknown[]): El {
    const el = document.createElement(tag);
    if (attrs) {
      for (const key of Object.keys(attrs)) {
        const v = attrs[key];
        if (v === undefined || v === false) continue;
        if (key === "class") el.className = String(v);
        else el.setAttribute(key, v === true ? "" : String(v));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      el.append(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return el;
  }
  function json(value: unknown): string {
    if (typeof value === "string") return value;
    try {
      return JSON.stringify(value, null, 2) ?? "";
    } catch {
      return String(value);
    }
  }
  function pre(value: unknown): El {
    const text = json(value);
    const LIMIT = 200_000;
    const el = h("pre", { class: "json" }, text.length > LIMIT ? text.slice(0, LIMIT) : text);
    if (text.length <= LIMIT) return el;
    const more = h("button", { type: "button", class: "link" }, "show all " + text.length.toLocaleString() + " characters");
    more.addEventListener("click", () => {
      el.textContent = text;
      more.remove();
    });
    return h("div", null, el, more);
  }
  function section(title: string, ...body: unknown[]): El {
    return h("section", { class: "block" }, h("h3", null, title), ...body);
  }
  function shortId(id: string): string {
    return id.length > 12 ? id.slice(0, 8) + "…" : id;
  }
  return { h, json, pre, section, shortId };
}
