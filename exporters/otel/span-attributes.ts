import type { Attributes } from "@opentelemetry/api";

/**
 * Properties a span's attribute object holds in its own slots. V8 keeps an object whose
 * properties are added by computed key in "fast" mode (a hidden class, values in slots) only up to
 * about 20 of them: `{}` has room for 4 and takes some 16 more outside; the next one turns it into
 * a hash dictionary, and every later write and read pays for that. An openinference tool span has
 * about 30 attributes: building them in a dictionary was the largest single cost of its export.
 * With this many slots an object stays fast up to about twice as many attributes.
 */
export const ATTRIBUTE_SLOTS = 32;

const reserving = false;

/**
 * V8 sizes the objects a constructor makes by the `this.x =` assignments in its source, whether
 * they run or not: these never run, the objects are empty, and their prototype is
 * `Object.prototype` (they are plain objects to every reader).
 */
function AttributeSlots(this: Record<string, number>): void {
  if (reserving) {
    this.a0 = this.a1 = this.a2 = this.a3 = this.a4 = this.a5 = this.a6 = this.a7 = 0;
    this.a8 = this.a9 = this.a10 = this.a11 = this.a12 = this.a13 = this.a14 = this.a15 = 0;
    this.a16 = this.a17 = this.a18 = this.a19 = this.a20 = this.a21 = this.a22 = this.a23 = 0;
    this.a24 = this.a25 = this.a26 = this.a27 = this.a28 = this.a29 = this.a30 = this.a31 = 0;
  }
}
AttributeSlots.prototype = Object.prototype;
const Slots = AttributeSlots as unknown as new () => Attributes;

// After a constructor's first few objects V8 trims the slots no object has used so far. Filling
// one object now keeps them all, whatever the first spans look like.
const first = new Slots();
for (let i = 0; i < ATTRIBUTE_SLOTS; i++) first[`\u0000slot${i}`] = 0;

/** A new, empty attribute object for a span (a plain object with room for ATTRIBUTE_SLOTS attributes in place). */
export function newSpanAttributes(): Attributes {
  return new Slots();
}
