import { jsonText } from "../../../events/json-text.js";
import { textHash } from "../../../events/text-hash.js";
import type { Json } from "../../../events/json.js";

/**
 * Two JSON values side by side, as indented JSON text in which only what differs is marked: a
 * changed scalar, a key or an item only one side has, the words that differ inside two strings.
 * A string holding JSON (a tool's result as text, a call's arguments) is compared as that JSON.
 * Pure: the page turns the pieces into elements; the unit test reads them.
 */

export type Change = "changed" | "added" | "removed";

/** A piece of one side's text; `change` is set on the pieces that differ. */
export interface Piece {
  text: string;
  change?: Change;
}

export interface ValueDiff {
  a: Piece[];
  b: Piece[];
}

/** Strings longer than this are not read as the JSON they may hold. */
const MAX_STRUCTURAL_CHARS = 1_000_000;
/** Arrays lined up by their longest common run when both are this short; longer ones item by item. */
const MAX_ALIGN_CELLS = 40_000;
/** Strings compared word by word when both have at most this many words. */
const MAX_WORDS = 2_000;
/**
 * Levels compared member by member; deeper, a differing value is marked whole. Each level compares
 * its members' whole text, so the bound keeps the work linear in the values' size.
 */
const MAX_DEPTH = 64;

type Presence = "both" | "a" | "b";

interface Node {
  a: unknown;
  b: unknown;
  presence: Presence;
  indent: string;
  /** `"key": ` of an object member, empty for an array item or the top. */
  key: string;
  depth: number;
  /** Whether a member follows on side A, on side B (each side's text is JSON of its own). */
  comma: [boolean, boolean];
}

type Work = Node | { close: [string, string] };

class Side {
  readonly pieces: Piece[] = [];
  lines = 0;

  write(text: string, change?: Change): void {
    if (text === "") return;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.lines++;
    const last = this.pieces[this.pieces.length - 1];
    if (last && last.change === change) last.text += text;
    else this.pieces.push(change === undefined ? { text } : { text, change });
  }
}

/**
 * A hash of each value's canonical JSON (key order aside), each object's computed once from its
 * members' hashes: comparing any two members at any depth costs one lookup, so a comparison stays
 * linear in the values' size however deep they nest. Iterative: no recursion on the input's depth.
 */
class ValueHashes {
  private readonly known = new Map<object, string>();

  of(value: unknown): string {
    if (value === null || typeof value !== "object") return textHash(JSON.stringify(value ?? null));
    const cached = this.known.get(value);
    if (cached !== undefined) return cached;
    const stack: { value: object; expanded: boolean }[] = [{ value, expanded: false }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (this.known.has(top.value)) {
        stack.pop();
        continue;
      }
      const members = Array.isArray(top.value) ? top.value : Object.values(top.value);
      if (!top.expanded) {
        top.expanded = true;
        for (const m of members) if (m !== null && typeof m === "object" && !this.known.has(m)) stack.push({ value: m, expanded: false });
        continue;
      }
      stack.pop();
      const text = Array.isArray(top.value)
        ? "[" + top.value.map((m) => this.of(m)).join(",") + "]"
        : "{" +
          Object.keys(top.value)
            .sort()
            .map((k) => JSON.stringify(k) + ":" + this.of((top.value as Record<string, unknown>)[k]))
            .join(",") +
          "}";
      this.known.set(top.value, textHash(text));
    }
    return this.known.get(value)!;
  }
}

/** JSON text, indented by two, every line after the first also by `indent` (any depth: no recursion). */
function pretty(value: unknown, indent: string): string {
  const text = jsonText((value ?? null) as Json, 2);
  return indent === "" ? text : text.replace(/\n/g, "\n" + indent);
}

/** The JSON value a string holds, when it is an object or an array written as text. */
function heldJson(value: unknown): unknown {
  if (typeof value !== "string" || value.length > MAX_STRUCTURAL_CHARS) return undefined;
  const t = value.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Longest common subsequence of two key lists, as index pairs (-1 for a side without the item). */
function alignLists(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_ALIGN_CELLS) {
    const out: [number, number][] = [];
    for (let k = 0; k < Math.max(n, m); k++) out.push([k < n ? k : -1, k < m ? k : -1]);
    return out;
  }
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[at(i, j)] = a[i] === b[j] ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
  const out: [number, number][] = [];
  let onlyA: number[] = [];
  let onlyB: number[] = [];
  // Items between two matches are paired in order (a changed item), the rest are one side's.
  const flush = () => {
    for (let k = 0; k < Math.max(onlyA.length, onlyB.length); k++) out.push([onlyA[k] ?? -1, onlyB[k] ?? -1]);
    onlyA = [];
    onlyB = [];
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      flush();
      out.push([i++, j++]);
    } else if (j >= m || (i < n && lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!)) onlyA.push(i++);
    else onlyB.push(j++);
  }
  flush();
  return out;
}

/** Two strings' JSON text with the words that differ marked; whole when they share nothing or are long. */
function stringDiff(a: string, b: string, sa: Side, sb: Side): void {
  const words = (s: string) => JSON.stringify(s).match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
  const wa = words(a);
  const wb = words(b);
  if (wa.length > MAX_WORDS || wb.length > MAX_WORDS || wa.length * wb.length > 4_000_000) {
    sa.write(JSON.stringify(a), "changed");
    sb.write(JSON.stringify(b), "changed");
    return;
  }
  const pairs = alignWords(wa, wb);
  if (!pairs.some(([i, j]) => i >= 0 && j >= 0 && wa[i]!.trim() !== "" && wa[i] !== '"')) {
    sa.write(JSON.stringify(a), "changed");
    sb.write(JSON.stringify(b), "changed");
    return;
  }
  for (const [i, j] of pairs) {
    const same = i >= 0 && j >= 0;
    if (i >= 0) sa.write(wa[i]!, same ? undefined : "changed");
    if (j >= 0) sb.write(wb[j]!, same ? undefined : "changed");
  }
}

/** Words lined up: matched pairs, and each side's other words in place (-1 on the other side). */
function alignWords(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const lcs = new Uint16Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[at(i, j)] = a[i] === b[j] ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) out.push([i++, j++]);
    else if (j >= m || (i < n && lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!)) out.push([i++, -1]);
    else out.push([-1, j++]);
  }
  return out;
}

/** Pads the side with fewer lines, so the two texts stay line by line beside each other. */
function level(sa: Side, sb: Side): void {
  while (sa.lines < sb.lines) sa.write("\n");
  while (sb.lines < sa.lines) sb.write("\n");
}

function containerChildren(hashes: ValueHashes, a: unknown, b: unknown, inner: string, depth: number): Node[] {
  const children: Node[] = [];
  if (Array.isArray(a) && Array.isArray(b)) {
    const pairs = alignLists(
      a.map((v) => hashes.of(v)),
      b.map((v) => hashes.of(v)),
    );
    for (const [i, j] of pairs)
      children.push({
        a: i >= 0 ? a[i] : undefined,
        b: j >= 0 ? b[j] : undefined,
        presence: i >= 0 && j >= 0 ? "both" : i >= 0 ? "a" : "b",
        indent: inner,
        key: "",
        depth,
        comma: [false, false],
      });
    return withCommas(children);
  }
  const oa = a as Record<string, unknown>;
  const ob = b as Record<string, unknown>;
  const keys = [...Object.keys(oa), ...Object.keys(ob).filter((k) => !Object.hasOwn(oa, k))];
  for (const k of keys) {
    const inA = Object.hasOwn(oa, k);
    const inB = Object.hasOwn(ob, k);
    const presence: Presence = inA && inB ? "both" : inA ? "a" : "b";
    children.push({ a: oa[k], b: ob[k], presence, indent: inner, key: JSON.stringify(k) + ": ", depth, comma: [false, false] });
  }
  return withCommas(children);
}

/** Each member's comma, per side: whether a later member is on that side. */
function withCommas(children: Node[]): Node[] {
  let laterA = false;
  let laterB = false;
  for (let k = children.length - 1; k >= 0; k--) {
    const c = children[k]!;
    c.comma = [laterA, laterB];
    laterA ||= c.presence !== "b";
    laterB ||= c.presence !== "a";
  }
  return children;
}

/** Writes one node: the same text on both sides, one side's marked, or its children to come. */
function step(node: Node, hashes: ValueHashes, sa: Side, sb: Side, work: Work[]): void {
  const endA = (node.comma[0] ? "," : "") + "\n";
  const endB = (node.comma[1] ? "," : "") + "\n";
  if (node.presence !== "both") {
    const side = node.presence === "a" ? sa : sb;
    const value = node.presence === "a" ? node.a : node.b;
    side.write(node.indent);
    side.write(node.key + pretty(value, node.indent), node.presence === "a" ? "removed" : "added");
    side.write(node.presence === "a" ? endA : endB);
    level(sa, sb);
    return;
  }
  if (hashes.of(node.a) === hashes.of(node.b)) {
    sa.write(node.indent + node.key + pretty(node.a, node.indent) + endA);
    sb.write(node.indent + node.key + pretty(node.b, node.indent) + endB);
    return;
  }
  const a = heldJson(node.a) ?? node.a;
  const b = heldJson(node.b) ?? node.b;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects = isObject(a) && isObject(b);
  if ((bothArrays || bothObjects) && node.depth < MAX_DEPTH) {
    const [open, close] = bothArrays ? ["[", "]"] : ["{", "}"];
    sa.write(node.indent + node.key + open + "\n");
    sb.write(node.indent + node.key + open + "\n");
    work.push({ close: [node.indent + close + endA, node.indent + close + endB] });
    const children = containerChildren(hashes, a, b, node.indent + "  ", node.depth + 1);
    for (let k = children.length - 1; k >= 0; k--) work.push(children[k]!);
    return;
  }
  sa.write(node.indent + node.key);
  sb.write(node.indent + node.key);
  if (typeof node.a === "string" && typeof node.b === "string") stringDiff(node.a, node.b, sa, sb);
  else {
    sa.write(pretty(node.a, node.indent), "changed");
    sb.write(pretty(node.b, node.indent), "changed");
  }
  sa.write(endA);
  sb.write(endB);
  level(sa, sb);
}

/** The two values as side-by-side pieces of text, only what differs marked (see the module comment). */
export function diffValues(a: unknown, b: unknown): ValueDiff {
  const sa = new Side();
  const sb = new Side();
  // An explicit stack: recorded values nest as deep as their author liked.
  const hashes = new ValueHashes();
  const work: Work[] = [{ a, b, presence: "both", indent: "", key: "", depth: 0, comma: [false, false] }];
  while (work.length > 0) {
    const item = work.pop()!;
    if ("close" in item) {
      sa.write(item.close[0]);
      sb.write(item.close[1]);
    } else step(item, hashes, sa, sb, work);
  }
  const trim = (side: Side) => {
    const last = side.pieces[side.pieces.length - 1];
    if (last && last.change === undefined) last.text = last.text.replace(/\n+$/, "");
    return side.pieces.filter((p) => p.text !== "");
  };
  return { a: trim(sa), b: trim(sb) };
}

/** One value shown whole as added or removed (a tool call only one run made). */
export function wholeValue(value: unknown, change: Change): Piece[] {
  return [{ text: pretty(value, ""), change }];
}
