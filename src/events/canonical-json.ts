import { isJsonObject } from "./json.js";

/** Punctuation already written out, on the work stack among the values still to write. */
class Raw {
  constructor(readonly text: string) {}
}

function pushReversed(work: unknown[], parts: unknown[]): void {
  for (let i = parts.length - 1; i >= 0; i--) work.push(parts[i]);
}

/** JSON text of a value with object keys sorted: two values that differ only in key order read the same. */
export function canonicalJson(value: unknown): string {
  // An explicit stack, not recursion: recorded arguments can nest as deep as their author liked.
  const out: string[] = [];
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Raw) out.push(item.text);
    else if (Array.isArray(item)) {
      const parts: unknown[] = [new Raw("[")];
      item.forEach((v, i) => parts.push(...(i > 0 ? [new Raw(","), v] : [v])));
      parts.push(new Raw("]"));
      pushReversed(work, parts);
    } else if (isJsonObject(item)) {
      const parts: unknown[] = [new Raw("{")];
      Object.keys(item)
        .sort()
        .forEach((k, i) => parts.push(new Raw((i > 0 ? "," : "") + JSON.stringify(k) + ":"), item[k]));
      parts.push(new Raw("}"));
      pushReversed(work, parts);
    } else out.push(JSON.stringify(item) ?? "null");
  }
  return out.join("");
}
