import type { Json } from "../events/json.js";

/**
 * About how many characters `value` takes as JSON text, without building the text and without
 * recursion (recorded data nests as deep as it likes): string lengths, keys, 8 for any other
 * scalar, 2 for each container. A bound on held content, not an exact count.
 */
export function jsonSize(value: Json | undefined): number {
  let size = 0;
  const stack: (Json | undefined)[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") size += item.length + 2;
    else if (item === null || typeof item !== "object") size += 8;
    else if (Array.isArray(item)) {
      size += 2 + item.length;
      for (const element of item) stack.push(element);
    } else {
      size += 2;
      for (const key in item) {
        size += key.length + 4;
        stack.push(item[key]);
      }
    }
  }
  return size;
}
