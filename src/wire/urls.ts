import { REDACTED } from "./credentials.js";

/**
 * URLs as relaytrace shows them. Endpoints often carry credentials: `?key=…` for Gemini-style
 * APIs, `?api-key=`/`?sig=` for Azure-style gateways, `user:pass@host` for proxies. Every message,
 * event and diagnostic that names a URL shows it through {@link redactUrl}: the userinfo and
 * every query value are replaced (query names stay, so the shape of the URL is still visible).
 */

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `url` with userinfo and query values redacted. Text that is not a URL is redacted by shape. */
export function redactUrl(url: string): string {
  const scheme = SCHEME.exec(url);
  const prefix = scheme === null ? "" : scheme[0];
  let rest = url.slice(prefix.length);
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash !== -1) {
    fragment = rest.slice(hash);
    rest = rest.slice(0, hash);
  }
  let query = "";
  const q = rest.indexOf("?");
  if (q !== -1) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (prefix !== "") {
    const slash = rest.indexOf("/");
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    const at = authority.lastIndexOf("@");
    if (at !== -1) rest = `${REDACTED}@${rest.slice(at + 1)}`;
  }
  const redactedQuery = query === "" ? "" : `?${query.split("&").map(redactParam).join("&")}`;
  // A fragment is never sent, but an OAuth-style `#access_token=` is still a secret.
  const redactedFragment = fragment.includes("=") ? `#${REDACTED}` : fragment;
  return `${prefix}${rest}${redactedQuery}${redactedFragment}`;
}

function redactParam(param: string): string {
  const eq = param.indexOf("=");
  return eq === -1 ? param : `${param.slice(0, eq)}=${REDACTED}`;
}

// Scheme, then anything up to white space or a quote/bracket that ends a URL in prose or JSON.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** `text` with every URL in it passed through {@link redactUrl}. Linear in the text's length. */
export function redactUrlsInText(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (match) => redactUrl(match));
}

/**
 * `path` appended to `base`'s path, before its query and fragment:
 * `https://h/v1?key=K` + `/chat/completions` → `https://h/v1/chat/completions?key=K`.
 */
export function joinUrl(base: string, path: string): string {
  let end = base.length;
  const hash = base.indexOf("#");
  if (hash !== -1) end = hash;
  const q = base.indexOf("?");
  if (q !== -1 && q < end) end = q;
  const head = base.slice(0, end).replace(/\/+$/, "");
  const tail = path === "" ? "" : path.startsWith("/") ? path : `/${path}`;
  return `${head}${tail}${base.slice(end)}`;
}

/** A URL with its userinfo moved out: `user:pass@` never goes on the wire as part of a URL. */
export interface SplitUrl {
  url: string;
  /** `Basic …` credentials from the userinfo, when the URL had any */
  basicAuth?: string;
}

/** Removes userinfo from `url`, returning it as HTTP Basic credentials (decoded as the URL standard says). */
export function splitUserinfo(url: string): SplitUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url };
  }
  if (parsed.username === "" && parsed.password === "") return { url };
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.toString(), basicAuth: `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}` };
}
