const HEX = "0123456789abcdef";

/**
 * Deterministic UUIDv7-shaped ids: a fixed millisecond prefix, version 7, variant 10, and a
 * 62-bit counter in the low bits, so ids are valid, unique, strictly increasing and readable
 * (the last 8 bytes, i.e. the OTel span id, end in the counter).
 */
export function createSequentialIds(options: { startMs?: number } = {}): () => string {
  const ms = options.startMs ?? 1_772_366_400_000;
  const time = ms.toString(16).padStart(12, "0").slice(-12);
  let n = 0;
  return () => {
    n += 1;
    const seq = n.toString(16).padStart(15, "0");
    return `${time.slice(0, 8)}-${time.slice(8, 12)}-7000-8${seq.slice(0, 3)}-${seq.slice(3)}`;
  };
}

/** Whether a string is a lowercase canonical uuid (any version). */
export function isUuidLike(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value[i]!;
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== "-") return false;
    } else if (!HEX.includes(c)) return false;
  }
  return true;
}
