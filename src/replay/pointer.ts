import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { Dialect } from "../wire/types.js";

/**
 * Where the parts of one received message sit in the request body, in the order the dialect's
 * codec decodes them: JSON pointers relative to the message. Strict replay compares decoded
 * transcripts; these say where in the raw body the first difference is.
 */
export interface MessageLayout {
  /** the key naming the message's role (or kind, for a Responses item) */
  role: string | undefined;
  /** where the text lives when the message holds none yet (a string `content`, say) */
  textField: string | undefined;
  texts: string[];
  calls: { at: string; id: string; name: string; input: string }[];
  results: { id: string; text: string }[];
}

function emptyLayout(role: string | undefined): MessageLayout {
  return { role, textField: undefined, texts: [], calls: [], results: [] };
}

function has(o: JsonObject, key: string): boolean {
  return o[key] !== undefined;
}

/** Text parts of a content array: strings, `{text}` blocks of the dialect's text types, refusals. */
function textParts(content: Json | undefined, at: string, textTypes: readonly (string | undefined)[], into: MessageLayout): void {
  if (typeof content === "string") {
    into.textField = at;
    into.texts.push(at);
    return;
  }
  if (!Array.isArray(content)) return;
  into.textField = at;
  content.forEach((part, k) => {
    if (typeof part === "string") into.texts.push(`${at}/${k}`);
    else if (isJsonObject(part) && textTypes.includes(part["type"] as string | undefined) && typeof part["text"] === "string")
      into.texts.push(`${at}/${k}/text`);
    else if (isJsonObject(part) && part["type"] === "refusal" && typeof part["refusal"] === "string") into.texts.push(`${at}/${k}/refusal`);
  });
}

function chatLayout(m: JsonObject): MessageLayout {
  const layout = emptyLayout("/role");
  const role = m["role"];
  if (role === "tool" || role === "function") {
    const id = ["tool_call_id", "id", "name"].find((k) => typeof m[k] === "string") ?? "tool_call_id";
    layout.results.push({ id: `/${id}`, text: "/content" });
    return layout;
  }
  textParts(m["content"], "/content", ["text", undefined], layout);
  const calls = m["tool_calls"];
  if (Array.isArray(calls))
    calls.forEach((c, k) => {
      if (!isJsonObject(c)) return;
      const at = `/tool_calls/${k}`;
      const fn = isJsonObject(c["function"]) ? `${at}/function` : at;
      const args = fn === at && !has(c, "arguments") && has(c, "input") ? "input" : "arguments";
      layout.calls.push({ at, id: `${at}/id`, name: `${fn}/name`, input: `${fn}/${args}` });
    });
  return layout;
}

function anthropicLayout(m: JsonObject): MessageLayout {
  const layout = emptyLayout("/role");
  const content = m["content"];
  if (!Array.isArray(content)) {
    textParts(content, "/content", [], layout);
    return layout;
  }
  layout.textField = "/content";
  content.forEach((b, k) => {
    const at = `/content/${k}`;
    if (typeof b === "string") layout.texts.push(at);
    else if (!isJsonObject(b)) return;
    else if (b["type"] === "text") layout.texts.push(`${at}/text`);
    else if (b["type"] === "tool_use") layout.calls.push({ at, id: `${at}/id`, name: `${at}/name`, input: `${at}/input` });
    else if (b["type"] === "tool_result") layout.results.push({ id: `${at}/tool_use_id`, text: `${at}/content` });
  });
  return layout;
}

function geminiLayout(m: JsonObject): MessageLayout {
  const layout = emptyLayout("/role");
  const parts = m["parts"];
  if (!Array.isArray(parts)) return layout;
  layout.textField = "/parts";
  parts.forEach((p, k) => {
    if (!isJsonObject(p)) return;
    const at = `/parts/${k}`;
    if (typeof p["text"] === "string") {
      if (p["thought"] !== true) layout.texts.push(`${at}/text`);
    } else if (isJsonObject(p["functionCall"])) {
      const fc = `${at}/functionCall`;
      layout.calls.push({ at, id: `${fc}/id`, name: `${fc}/name`, input: `${fc}/args` });
    } else if (isJsonObject(p["functionResponse"])) {
      const fr = `${at}/functionResponse`;
      layout.results.push({ id: has(p["functionResponse"], "id") ? `${fr}/id` : `${fr}/name`, text: `${fr}/response` });
    }
  });
  return layout;
}

function responsesLayout(item: JsonObject): MessageLayout {
  const type = typeof item["type"] === "string" ? item["type"] : "message";
  if (type === "function_call") {
    const layout = emptyLayout("/type");
    const id = has(item, "call_id") || !has(item, "id") ? "/call_id" : "/id";
    layout.calls.push({ at: "", id, name: "/name", input: "/arguments" });
    return layout;
  }
  if (type === "function_call_output") {
    const layout = emptyLayout("/type");
    layout.results.push({ id: "/call_id", text: "/output" });
    return layout;
  }
  const layout = emptyLayout(type === "message" ? "/role" : "/type");
  if (type === "message") textParts(item["content"], "/content", ["input_text", "output_text", "text"], layout);
  return layout;
}

/** The layout of `message` (one entry of the received transcript list) in `dialect`. */
export function layoutOf(dialect: Dialect, message: Json | undefined): MessageLayout {
  if (!isJsonObject(message)) return emptyLayout(undefined);
  switch (dialect) {
    case "openai":
      return chatLayout(message);
    case "anthropic":
      return anthropicLayout(message);
    case "gemini":
      return geminiLayout(message);
    case "openai-responses":
      return responsesLayout(message);
  }
}

/** The pointers of a system prompt's text parts (a string, an array of blocks, or Gemini's `{parts}`). */
export function systemLayout(dialect: Dialect, body: JsonObject, key: string): MessageLayout {
  const layout = emptyLayout(undefined);
  const value = body[key];
  if (dialect === "gemini" && isJsonObject(value)) textParts(value["parts"], `/${key}/parts`, [undefined, "text"], layout);
  else textParts(value, `/${key}`, [undefined, "text", "input_text"], layout);
  return layout;
}

/**
 * The text part of `layout` that holds character `at` of the text its parts spell, joined by
 * `separator`, given the parts' own texts; the last part when `at` is past the end.
 */
export function textPointer(layout: MessageLayout, partTexts: readonly string[], at: number, separator: string): string | undefined {
  let end = 0;
  for (let k = 0; k < layout.texts.length; k++) {
    end += (partTexts[k]?.length ?? 0) + (k > 0 ? separator.length : 0);
    if (at < end) return layout.texts[k];
  }
  return layout.texts.at(-1) ?? layout.textField;
}

/** The first position at which two texts differ (the shorter one's length when one is a prefix of the other). */
export function firstDifferentChar(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return n;
}
