import { browserDocument as document, type El } from "./browser.js";
import { visibleText } from "./visible-text.js";

type Attrs = Record<string, string | number | boolean | undefined> | null;

/** Attributes a person reads (the rest are hooks and keep the recorded value). */
const READ_ATTRIBUTES = new Set(["title", "aria-label", "placeholder"]);

/** An element; every piece of data becomes text or an attribute value, never markup. */
export function h(tag: string, attrs?: Attrs, ...children: unknown[]): El {
  const el = document.createElement(tag);
  if (attrs) {
    for (const key of Object.keys(attrs)) {
      const v = attrs[key];
      if (v === undefined || v === false) continue;
      if (key === "class") el.className = String(v);
      else el.setAttribute(key, v === true ? "" : READ_ATTRIBUTES.has(key) ? visibleText(String(v)) : String(v));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "object" ? child : document.createTextNode(visibleText(String(child))));
  }
  return el;
}

/** A value as readable text: strings as they are, the rest as indented JSON. */
export function json(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? "";
  } catch {
    return String(value);
  }
}

/** A value in a `<pre>`, cut at 200,000 characters behind a "show all" button. */
export function pre(value: unknown): El {
  const text = visibleText(json(value));
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

export function section(title: string, ...body: unknown[]): El {
  return h("section", { class: "block" }, h("h3", null, title), ...body);
}

export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) + "…" : id;
}
