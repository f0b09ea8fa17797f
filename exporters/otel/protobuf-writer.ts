/** Bytes held back for a nested message's length: most are under 128 bytes (one varint byte). */
const LENGTH_SLOT = 1;
const TWO_32 = 4294967296;
/** A string this short whose characters are all ASCII is copied by a loop; longer ones are encoded natively. */
const SHORT_STRING = 128;

function varintSize(value: number): number {
  let size = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 128)) size++;
  return size;
}

const encoder = new TextEncoder();

/**
 * A protobuf wire-format writer into one growing byte array. One pass: a nested message's length
 * is written after its content (into a one-byte slot, the content moved up when the length needs
 * more), and a long string is encoded natively straight into the array rather than character by
 * character.
 */
export class ProtobufWriter {
  private bytes: Uint8Array;
  pos = 0;

  constructor(initialBytes = 64 * 1024) {
    this.bytes = new Uint8Array(initialBytes);
  }

  /** The bytes written: a view of the writer's array. */
  finish(): Uint8Array {
    return this.bytes.subarray(0, this.pos);
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** A non-negative integer below 2^53, or a negative one as its 64-bit two's complement (ten bytes). */
  varint(value: number): void {
    if (value < 0) return this.negativeVarint(value);
    this.reserve(10);
    const bytes = this.bytes;
    let v = value;
    while (v >= 0x80) {
      bytes[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    bytes[this.pos++] = v;
  }

  fixed32(value: number): void {
    this.reserve(4);
    const v = value >>> 0;
    const bytes = this.bytes;
    bytes[this.pos++] = v & 0xff;
    bytes[this.pos++] = (v >>> 8) & 0xff;
    bytes[this.pos++] = (v >>> 16) & 0xff;
    bytes[this.pos++] = v >>> 24;
  }

  fixed64(low: number, high: number): void {
    this.fixed32(low);
    this.fixed32(high);
  }

  double(value: number): void {
    this.reserve(8);
    new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8).setFloat64(0, value, true);
    this.pos += 8;
  }

  /** A length-delimited string, UTF-8 (a lone surrogate becomes U+FFFD, as `TextEncoder` writes it). */
  string(value: string): void {
    const n = value.length;
    if (n < SHORT_STRING) {
      this.reserve(n + 1);
      const bytes = this.bytes;
      let at = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) break;
        bytes[at++] = c;
      }
      if (i === n) {
        bytes[this.pos] = n;
        this.pos = at;
        return;
      }
    }
    const most = n * 3;
    const slot = varintSize(most);
    this.reserve(slot + most);
    const start = this.pos + slot;
    const written = encoder.encodeInto(value, this.bytes.subarray(start, start + most)).written;
    this.finishLength(this.pos, slot, start + written);
  }

  /** Length-delimited bytes of hex digits (trace and span ids). */
  hexBytes(hex: string): void {
    const n = hex.length >>> 1;
    this.varint(n);
    this.reserve(n);
    const bytes = this.bytes;
    for (let i = 0; i < n; i++) bytes[this.pos++] = (hexValue(hex.charCodeAt(2 * i)) << 4) | hexValue(hex.charCodeAt(2 * i + 1));
  }

  bytesField(value: Uint8Array): void {
    this.varint(value.length);
    this.reserve(value.length);
    this.bytes.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts a nested message: returns where its length goes (pass it to `end`). */
  begin(): number {
    this.reserve(LENGTH_SLOT);
    const at = this.pos;
    this.pos += LENGTH_SLOT;
    return at;
  }

  /** Ends the nested message `begin` started at `at`: writes its length. */
  end(at: number): void {
    this.finishLength(at, LENGTH_SLOT, this.pos);
  }

  /** Writes at `at` the length of the content from `at + slot` to `contentEnd`, moving the content to fit the varint. */
  private finishLength(at: number, slot: number, contentEnd: number): void {
    const length = contentEnd - at - slot;
    const size = varintSize(length);
    if (size !== slot) {
      if (size > slot) this.reserve(contentEnd - this.pos + size - slot);
      this.bytes.copyWithin(at + size, at + slot, contentEnd);
    }
    const bytes = this.bytes;
    let p = at;
    let v = length;
    while (v >= 0x80) {
      bytes[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    bytes[p] = v;
    this.pos = at + size + length;
  }

  private negativeVarint(value: number): void {
    // Two's complement of |value| in 64 bits, as low and high 32-bit halves.
    const abs = -value;
    let low = ~(abs % TWO_32) >>> 0;
    let high = ~Math.floor(abs / TWO_32) >>> 0;
    low = (low + 1) >>> 0;
    if (low === 0) high = (high + 1) >>> 0;
    this.reserve(10);
    const bytes = this.bytes;
    while (high > 0 || low > 0x7f) {
      bytes[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    bytes[this.pos++] = low;
  }

  /** Makes room for `more` bytes past `pos`. */
  private reserve(more: number): void {
    const needed = this.pos + more;
    if (needed <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < needed) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.pos));
    this.bytes = next;
  }
}

function hexValue(code: number): number {
  if (code <= 57) return code - 48; // 0-9
  return (code | 0x20) - 87; // a-f, A-F
}
