import type { Json, JsonObject } from "../events/json.js";
import { isLongLived, LONG_LIVED_MAX_HEIGHT, markLongLived } from "../events/long-lived-json.js";

/** Nesting deeper than this is cut (a 10,000-level document must not overflow the stack). */
export const MAX_JSON_DEPTH = 100;

export const CIRCULAR_MARKER = "[Circular]";
export const DEPTH_MARKER = "[MaxDepth]";
/** A value whose reading threw (a throwing getter, a revoked Proxy): telemetry must not rethrow it into the app. */
export const UNREADABLE_MARKER = "[Unreadable]";

/** What a copy had to change to make a value JSON. */
export interface JsonCopyIssues {
  count: number;
  first?: string;
}

function note(issues: JsonCopyIssues | undefined, what: string): void {
  if (!issues) return;
  issues.count++;
  issues.first ??= what;
}

/**
 * Copies an application value into plain JSON so that later mutation by the app cannot change
 * a queued event, and so that exporters never meet values JSON cannot hold. Outcomes:
 * non-finite numbers → null; BigInt → its decimal string; functions, symbols and undefined →
 * dropped from objects, null in arrays (as JSON.stringify does); cycles → "[Circular]";
 * nesting past MAX_JSON_DEPTH → "[MaxDepth]"; class instances with toJSON (Date) → their toJSON
 * value (plain objects and arrays are copied key by key);
 * an object whose reading throws (getter, revoked Proxy) → "[Unreadable]".
 * Values JSON.stringify would empty keep their content: an own `__proto__` key stays an own key;
 * a Map → its `[key, value]` entries; a Set → its values; an Error → `{name, message, stack}`
 * with its `cause`, `errors` and own enumerable fields; a boxed primitive → the primitive; a RegExp
 * → its source text; a typed array → its numbers. Anything else that has no JSON form (an
 * ArrayBuffer, a WeakMap, a Promise) becomes `{}` and is counted.
 * Each change is counted in `issues` so the caller can report a diagnostic.
 */
export function toJsonSafe(value: unknown, issues?: JsonCopyIssues, freeze = false, share = freeze): Json {
  return copy(value, 0, [], issues, (freeze ? FREEZE : 0) | (share ? SHARE : 0));
}

/** Bits of a copy's mode: freeze each copied object as it is built; take recurring frozen trees as they are. */
const FREEZE = 1;
const SHARE = 2;

function copy(value: unknown, depth: number, path: object[], issues: JsonCopyIssues | undefined, mode: number): Json {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value)) return value;
      note(issues, "non-finite number");
      return null;
    case "bigint":
      note(issues, "BigInt");
      return value.toString();
    case "undefined":
      return null;
    case "function":
    case "symbol":
      note(issues, typeof value);
      return null;
    default:
      break;
  }
  if (value === null) return null;
  try {
    return copyObject(value as object, depth, path, issues, mode);
  } catch {
    note(issues, "unreadable value");
    return UNREADABLE_MARKER;
  }
}

/** Stores `value` under `key`; `__proto__` as an own key (a plain assignment would set the prototype instead). */
function setMember(out: JsonObject, key: string, value: Json): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
}

// FREEZE freezes each copied object as it is built: one pass instead of copy, then deepFreeze.
// SHARE takes a recurring tree the runtime already froze as it is (it is never written to).
// One function on purpose: it runs for every object of every payload, and its cases share the
// cycle path and depth bookkeeping that helpers would have to pass around.
// eslint-disable-next-line max-lines-per-function
function copyObject(obj: object, depth: number, path: object[], issues: JsonCopyIssues | undefined, mode: number): Json {
  // A recurring tree the runtime already copied and froze is taken as it is (it fits below this depth).
  if ((mode & SHARE) !== 0 && depth + LONG_LIVED_MAX_HEIGHT < MAX_JSON_DEPTH && isLongLived(obj)) return obj as Json;
  if (depth >= MAX_JSON_DEPTH) {
    note(issues, "nesting too deep");
    return DEPTH_MARKER;
  }
  for (let i = 0; i < path.length; i++) {
    if (path[i] === obj) {
      note(issues, "cycle");
      return CIRCULAR_MARKER;
    }
  }
  const isArray = Array.isArray(obj);
  // Plain objects and arrays (nearly every payload) skip the toJSON lookup up the prototype chain.
  if (!isArray && Object.getPrototypeOf(obj) !== Object.prototype) {
    const toJSON = (obj as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      let replaced: unknown;
      try {
        replaced = (toJSON as () => unknown).call(obj);
      } catch {
        note(issues, "toJSON threw");
        return null;
      }
      if (replaced !== obj) return copy(replaced, depth + 1, path, issues, mode);
    }
    const special = specialForm(obj, issues);
    if (special !== undefined) {
      if ("json" in special) return special.json;
      path.push(obj);
      try {
        return copy(special.form, depth, path, issues, mode);
      } finally {
        path.pop();
      }
    }
  }
  path.push(obj);
  try {
    if (isArray) {
      const list = obj as unknown[];
      const out: Json[] = new Array(list.length);
      for (let i = 0; i < list.length; i++) out[i] = copy(list[i], depth + 1, path, issues, mode);
      if ((mode & FREEZE) !== 0) Object.freeze(out);
      return out;
    }
    const out: JsonObject = {};
    const record = obj as Record<string, unknown>;
    const keys = Object.keys(record);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      let v: unknown;
      try {
        v = record[key];
      } catch {
        // one throwing getter costs only its own key
        note(issues, "unreadable value");
        setMember(out, key, UNREADABLE_MARKER);
        continue;
      }
      // Scalars are stored here rather than through `copy`: most payload values are scalars.
      switch (typeof v) {
        case "string":
        case "boolean":
          setMember(out, key, v as string | boolean);
          continue;
        case "number":
          if (Number.isFinite(v)) {
            setMember(out, key, v as number);
            continue;
          }
          break;
        case "undefined":
          continue;
        case "function":
        case "symbol":
          note(issues, typeof v);
          continue;
        default:
          break;
      }
      setMember(out, key, copy(v, depth + 1, path, issues, mode));
    }
    if (keys.length === 0 && Object.getPrototypeOf(obj) !== null && Object.getPrototypeOf(obj) !== Object.prototype) {
      emptiedObject(obj, issues);
    }
    if ((mode & FREEZE) !== 0) Object.freeze(out);
    return out;
  } finally {
    path.pop();
  }
}

/**
 * The JSON form of a built-in whose own keys do not hold its content: `{json}`, a scalar, or
 * `{form}`, a plain value to copy in its place (at the same depth: the container it replaces is
 * not a level). Undefined for anything else.
 */
function specialForm(obj: object, issues: JsonCopyIssues | undefined): { json: Json } | { form: unknown } | undefined {
  if (obj instanceof Map) return { form: Array.from(obj.entries()) };
  if (obj instanceof Set) return { form: Array.from(obj.values()) };
  if (obj instanceof Error) return { form: errorFields(obj) };
  if (obj instanceof RegExp) return { json: String(obj) };
  if (obj instanceof String || obj instanceof Boolean) return { json: obj.valueOf() };
  if (obj instanceof Number) {
    const n = obj.valueOf();
    if (Number.isFinite(n)) return { json: n };
    note(issues, "non-finite number");
    return { json: null };
  }
  if (ArrayBuffer.isView(obj) && !(obj instanceof DataView)) {
    const items = obj as unknown as ArrayLike<number | bigint>;
    return { form: Array.from(items, (n) => (typeof n === "bigint" ? n.toString() : n)) };
  }
  return undefined;
}

/** An Error's name, message and stack (own or inherited), its cause and errors, then its own enumerable fields. */
function errorFields(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  if (typeof error.stack === "string") out["stack"] = error.stack;
  if ("cause" in error && error.cause !== undefined) out["cause"] = error.cause;
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) out["errors"] = errors;
  for (const key of Object.keys(error)) {
    if (!(key in out)) Object.defineProperty(out, key, { value: (error as unknown as Record<string, unknown>)[key], enumerable: true });
  }
  return out;
}

/**
 * A class instance with no own enumerable keys copies as `{}`: right for an empty data class, a
 * loss for the built-ins whose content lives elsewhere, which are counted so the loss shows.
 */
function emptiedObject(obj: object, issues: JsonCopyIssues | undefined): void {
  if (obj instanceof ArrayBuffer || obj instanceof DataView || obj instanceof WeakMap || obj instanceof WeakSet || obj instanceof Promise) {
    note(issues, `${obj.constructor.name} has no JSON form`);
  } else if (typeof SharedArrayBuffer !== "undefined" && obj instanceof SharedArrayBuffer) {
    note(issues, "SharedArrayBuffer has no JSON form");
  }
}

/**
 * A deep-frozen JSON copy of `value` marked as recurring (see long-lived-json.ts), for a caller
 * that sends the same value in call after call (the agent loop's transcript messages, its tool
 * list): events then hold it without copying it again, and exporters remember its text and
 * decode. The copy is marked, and with `items` each item of a copied array too (a tool list,
 * whose entries the projections serialize one by one). Undefined unless the value is plain JSON
 * as it is (plain objects and arrays of strings, finite numbers, booleans and null: a copy that
 * had to change anything, even a Date into its text, would not be the caller's value) and nests
 * at most LONG_LIVED_MAX_HEIGHT levels: the caller keeps its own value, copied per event as any
 * other. A value already marked is returned as it is.
 */
export function longLivedJson(value: unknown, items = false): Json | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (isLongLived(value)) return value as Json;
  if (!isPlainJson(value, LONG_LIVED_MAX_HEIGHT)) return undefined;
  const copy = toJsonSafe(value, undefined, true) as object;
  markLongLived(copy);
  if (items && Array.isArray(copy)) for (const item of copy) if (typeof item === "object" && item !== null) markLongLived(item);
  return copy as Json;
}

/** Height and object count past which `isJsonAsItIs` says no (and the value is copied instead). */
const AS_IT_IS_MAX_HEIGHT = 32;
const AS_IT_IS_MAX_OBJECTS = 4096;

/**
 * Whether `value` is plain JSON as it is, so that `JSON.stringify(value)` is the text of its
 * `toJsonSafe` copy and no copy issue would be counted: a string, boolean, finite number or null,
 * or plain objects and arrays (no subclass, whose prototype could hold a `toJSON`) of those, at
 * most AS_IT_IS_MAX_HEIGHT deep and AS_IT_IS_MAX_OBJECTS objects large. Never throws: a getter or
 * Proxy trap that throws says no.
 */
export function isJsonAsItIs(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      if (value === null) return true;
      try {
        return isPlainTree(value);
      } catch {
        return false;
      }
    default:
      return false;
  }
}

/** isJsonAsItIs for an object: one pass, an explicit stack (made only for nested objects), no other allocation. */
function isPlainTree(root: object): boolean {
  // Pairs of (object, depth), flattened.
  let stack: (object | number)[] | undefined;
  let node = root;
  let depth = 0;
  let objects = 0;
  for (;;) {
    if (++objects > AS_IT_IS_MAX_OBJECTS || depth > AS_IT_IS_MAX_HEIGHT) return false;
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto === Object.prototype) {
      // for-in also visits inherited enumerable keys: stricter than needed, never looser.
      for (const key in node) {
        const member: unknown = (node as Record<string, unknown>)[key];
        if (typeof member === "object" && member !== null) (stack ??= []).push(member, depth + 1);
        else if (!isJsonScalar(member)) return false;
      }
    } else if (proto === Array.prototype && Array.isArray(node)) {
      const list = node as unknown[];
      for (let i = 0; i < list.length; i++) {
        const member = list[i];
        if (typeof member === "object" && member !== null) (stack ??= []).push(member, depth + 1);
        else if (!isJsonScalar(member)) return false; // a hole reads as undefined: no
      }
    } else {
      return false;
    }
    if (stack === undefined || stack.length === 0) return true;
    depth = stack.pop() as number;
    node = stack.pop() as object;
  }
}

/** A string, boolean, finite number or null. */
function isJsonScalar(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    default:
      return value === null;
  }
}

/** Whether `value` is plain JSON nesting at most `height` levels (explicit stack, stops at the first misfit). */
function isPlainJson(value: object, height: number): boolean {
  const stack: { node: object; depth: number }[] = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > height) return false;
    let members: unknown[];
    if (Array.isArray(node)) members = node;
    else if (Object.getPrototypeOf(node) === Object.prototype) members = Object.values(node);
    else return false;
    for (let i = 0; i < members.length; i++) {
      const member = members[i];
      switch (typeof member) {
        case "string":
        case "boolean":
          continue;
        case "number":
          if (Number.isFinite(member)) continue;
          return false;
        case "object":
          if (member === null) continue;
          stack.push({ node: member, depth: depth + 1 });
          continue;
        default:
          return false; // undefined, function, symbol, bigint
      }
    }
  }
  return true;
}

/**
 * A JSON value the runtime built itself from values it owns (strings, its own constants) and
 * froze: an event takes it as it is, without a copy, where the field would be frozen anyway.
 */
export class FrozenJson<T extends Json = Json> {
  readonly value: T;

  /** `instanceof` that never throws: a Proxy whose getPrototypeOf trap throws is simply not one. */
  static [Symbol.hasInstance](value: unknown): boolean {
    try {
      return typeof value === "object" && value !== null && Function.prototype[Symbol.hasInstance].call(FrozenJson, value);
    } catch {
      return false;
    }
  }

  constructor(value: T) {
    this.value = deepFreeze(value);
  }
}

/** Freezes a JSON value we built ourselves, so subscribers cannot change what the next one sees. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
