import type { Json, JsonObject } from "../../src/events/json.js";

/**
 * Shortens JSON so that its text fits a length limit and still parses: strings are cut inside
 * their value with a `…[+N chars]` marker, and when even the shortest strings leave too much
 * structure, the tail of an array or object is dropped and counted in a last item
 * (`"…[+N items]"`, or a `"…": "+N keys"` member). Lengths are UTF-16 code units, as
 * OpenTelemetry's attribute value length limit counts them. Linear in the size of the value (the
 * search for the string cap adds a pass over the string lengths per halving, at most ~50), and
 * iterative: no recursion on its depth.
 *
 * Strings are shortened fairly: every string longer than a common cap is cut to that cap, the
 * largest cap whose text fits (so short strings, keys, numbers and structure stay whole).
 */
export function truncateJson(value: Json, limit: number): string | undefined {
  if (!(limit >= 2)) return undefined;
  const sizes = measure(value);
  if (sizes.total <= limit) return jsonTextOf(value, sizes);
  const floor = minimumCut(sizes.longestString);
  if (sizes.structure + sumCapped(sizes.strings, floor) <= limit) {
    const text = new Emitter(limit, largestCap(sizes, floor, limit), false).run(value);
    if (text !== undefined && text.length <= limit) return text;
  }
  // Even the shortest strings leave too much: tails of containers go, each counted.
  const text = new Emitter(limit, Math.max(floor, Math.floor(limit / 8)), true).run(value);
  return text !== undefined && text.length <= limit ? text : undefined;
}

/** `truncateJson` of JSON text: undefined when the text is not JSON (cut it as plain text instead) or the limit is below 2. */
export function truncateJsonText(text: string, limit: number): string | undefined {
  if (text.length <= limit) return text;
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
  return truncateJson(value, limit);
}

/** Whether `text` may be a JSON object or array (its first non-blank character opens one). */
export function looksLikeJsonContainer(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b || c === 0x5b; // { or [
  }
  return false;
}

const ELLIPSIS = "…";

function stringMarker(dropped: number): string {
  return `${ELLIPSIS}[+${dropped} chars]`;
}

function itemsMarker(dropped: number): string {
  return JSON.stringify(`${ELLIPSIS}[+${dropped} items]`);
}

function keysMarker(dropped: number): string {
  return `${JSON.stringify(ELLIPSIS)}:${JSON.stringify(`+${dropped} keys`)}`;
}

/** The shortest cut string worth writing: quotes, one character and a marker as long as the longest string needs. */
function minimumCut(longestString: number): number {
  return 2 + 2 + stringMarker(longestString).length;
}

interface Sizes {
  /** The length of the whole text. */
  total: number;
  /** The length of everything but string values (keys included). */
  structure: number;
  /** The text length of each string value, quotes included. */
  strings: number[];
  longestString: number;
}

/** One open container of an iterative walk. */
interface Frame {
  items: readonly Json[] | undefined;
  object: JsonObject | undefined;
  keys: readonly string[] | undefined;
  next: number;
}

function frameOf(value: Json[] | JsonObject): Frame {
  if (Array.isArray(value)) return { items: value, object: undefined, keys: undefined, next: 0 };
  return { items: undefined, object: value, keys: Object.keys(value), next: 0 };
}

function frameLength(frame: Frame): number {
  return frame.items !== undefined ? frame.items.length : frame.keys!.length;
}

function scalarText(value: Json): string {
  return JSON.stringify(value) ?? "null";
}

function measure(value: Json): Sizes {
  const sizes: Sizes = { total: 0, structure: 0, strings: [], longestString: 0 };
  const visit = (item: Json): Frame | undefined => {
    if (typeof item === "string") {
      const length = JSON.stringify(item).length;
      sizes.strings.push(length);
      sizes.total += length;
      if (item.length > sizes.longestString) sizes.longestString = item.length;
      return undefined;
    }
    if (item === null || typeof item !== "object") {
      const length = scalarText(item).length;
      sizes.total += length;
      sizes.structure += length;
      return undefined;
    }
    sizes.total += 2;
    sizes.structure += 2;
    return frameOf(item);
  };
  const stack: Frame[] = [];
  const first = visit(value);
  if (first) stack.push(first);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frameLength(frame)) {
      stack.pop();
      continue;
    }
    const i = frame.next++;
    let separator = i > 0 ? 1 : 0;
    let item: Json;
    if (frame.items !== undefined) item = frame.items[i]!;
    else {
      const key = frame.keys![i]!;
      separator += JSON.stringify(key).length + 1;
      item = frame.object![key]!;
    }
    sizes.total += separator;
    sizes.structure += separator;
    const opened = visit(item);
    if (opened) stack.push(opened);
  }
  return sizes;
}

function jsonTextOf(value: Json, sizes: Sizes): string {
  // Fits as it is; V8's stringify is fast but recursive, so deep values take the emitter.
  try {
    return JSON.stringify(value);
  } catch {
    return new Emitter(sizes.total, Number.MAX_SAFE_INTEGER, false).run(value)!;
  }
}

function sumCapped(strings: readonly number[], cap: number): number {
  let sum = 0;
  for (const length of strings) sum += length < cap ? length : cap;
  return sum;
}

/** The largest cap ≥ floor at which every string cut to it leaves the text within the limit (binary search). */
function largestCap(sizes: Sizes, floor: number, limit: number): number {
  let low = floor;
  let high = 0;
  for (const length of sizes.strings) if (length > high) high = length;
  while (low < high) {
    const mid = low + Math.ceil((high - low) / 2);
    if (sizes.structure + sumCapped(sizes.strings, mid) <= limit) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** How many code units the JSON text of `s[i]` takes (a surrogate pair counts at its high half, 2). */
function escapedLength(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? 2 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) return 6; // a low half alone (a pair is counted at its high half)
  return 1;
}

/**
 * The JSON text of `s` cut so that the text, quotes and marker included, is at most `room` long;
 * undefined when not even the marker fits.
 */
function cutString(s: string, room: number, withMarker = true): string | undefined {
  const markerLength = withMarker ? stringMarker(s.length).length : 0;
  const budget = room - 2 - markerLength;
  if (budget < 0) return undefined;
  let used = 0;
  let kept = 0;
  while (kept < s.length) {
    const length = escapedLength(s, kept);
    if (used + length > budget) break;
    used += length;
    const c = s.charCodeAt(kept);
    const pair = c >= 0xd800 && c <= 0xdbff && length === 2;
    kept += pair ? 2 : 1;
  }
  if (kept >= s.length) return JSON.stringify(s);
  return JSON.stringify(withMarker ? s.slice(0, kept) + stringMarker(s.length - kept) : s.slice(0, kept));
}

interface OpenFrame extends Frame {
  /** Items written so far. */
  written: number;
  dropped: number;
  /** What this frame holds back from the budget: its closing bracket, and room for its drop marker. */
  reserve: number;
}

/** Writes the text, cutting strings to `cap` and (with `drops`) dropping the tails of containers that do not fit. */
class Emitter {
  private readonly parts: string[] = [];
  private used = 0;
  private reserved = 0;
  private readonly stack: OpenFrame[] = [];

  constructor(
    private readonly limit: number,
    private readonly cap: number,
    private readonly drops: boolean,
  ) {}

  run(value: Json): string | undefined {
    if (!this.place(value, "")) {
      // Not even the outer value's opening fits (a tiny limit): the smallest text of its kind.
      if (typeof value === "string") return cutString(value, this.limit, false);
      if (value !== null && typeof value === "object") return Array.isArray(value) ? "[]" : "{}";
      return undefined;
    }
    while (this.stack.length > 0) {
      const frame = this.stack[this.stack.length - 1]!;
      const length = frameLength(frame);
      if (frame.next >= length) {
        this.close(frame);
        continue;
      }
      const i = frame.next++;
      let prefix = frame.written > 0 ? "," : "";
      let item: Json;
      if (frame.items !== undefined) item = frame.items[i]!;
      else {
        const key = frame.keys![i]!;
        prefix += `${JSON.stringify(key)}:`;
        item = frame.object![key]!;
      }
      if (this.place(item, prefix)) frame.written++;
      else {
        frame.dropped = length - i;
        frame.next = length;
      }
    }
    return this.parts.join("");
  }

  private room(prefix: string): number {
    return this.limit - this.used - this.reserved - prefix.length;
  }

  private write(text: string): void {
    this.parts.push(text);
    this.used += text.length;
  }

  /** Writes `value` after `prefix` if it fits (a container: its opening, with room to close it); false when not. */
  private place(value: Json, prefix: string): boolean {
    const room = this.room(prefix);
    if (typeof value === "string") {
      const whole = JSON.stringify(value);
      const text = whole.length <= this.cap && whole.length <= room ? whole : cutString(value, Math.min(this.cap, room));
      if (text === undefined) return false;
      this.write(prefix + text);
      return true;
    }
    if (value === null || typeof value !== "object") {
      const text = scalarText(value);
      if (text.length > room) return false;
      this.write(prefix + text);
      return true;
    }
    const frame = frameOf(value);
    const length = frameLength(frame);
    const empty = Array.isArray(value) ? "[]" : "{}";
    if (length === 0) {
      if (empty.length > room) return false;
      this.write(prefix + empty);
      return true;
    }
    const marker = !this.drops ? 0 : 1 + (frame.items !== undefined ? itemsMarker(length) : keysMarker(length)).length;
    const reserve = 1 + marker;
    if (1 + reserve > room) return false;
    this.write(prefix + empty[0]);
    this.reserved += reserve;
    this.stack.push({ ...frame, written: 0, dropped: 0, reserve });
    return true;
  }

  private close(frame: OpenFrame): void {
    this.stack.pop();
    this.reserved -= frame.reserve;
    if (frame.dropped > 0) {
      const comma = frame.written > 0 ? "," : "";
      this.write(comma + (frame.items !== undefined ? itemsMarker(frame.dropped) : keysMarker(frame.dropped)));
    }
    this.write(frame.items !== undefined ? "]" : "}");
  }
}
