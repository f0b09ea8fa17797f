import { createHmac } from "node:crypto";
import type { PiiPattern } from "./patterns.js";

export type RedactionMode = "mask" | "hash" | "drop";

/** What `drop` puts in place of a whole string that held PII. */
export const DROPPED = "[redacted]";

/** `mask`: `[REDACTED:email]`. */
export function maskToken(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/**
 * Replaces PII inside one string. `hash` output is `[email:0123456789ab]`: the first 12 hex
 * characters of HMAC-SHA256(secret, traceKey ‖ value), so equal values are equal within one trace
 * and unlinkable across traces or across processes (the secret is random per redactor).
 */
export class StringRedactor {
  constructor(
    private readonly patterns: readonly PiiPattern[],
    private readonly mode: RedactionMode,
    private readonly secret: Buffer,
  ) {}

  /** Returns `text` unchanged (same string) when nothing matched. */
  redact(text: string, traceKey: string): string {
    if (text.length === 0) return text;
    let out = text;
    for (const pattern of this.patterns) {
      let rebuilt = "";
      let last = 0;
      for (const match of pattern.matches(out)) {
        if (this.mode === "drop") return DROPPED;
        const token = this.mode === "hash" ? `[${pattern.kind}:${this.hash(match.text, traceKey)}]` : maskToken(pattern.kind);
        rebuilt += out.slice(last, match.index) + token;
        last = match.index + match.text.length;
      }
      if (last > 0) out = rebuilt + out.slice(last);
    }
    return out;
  }

  private hash(value: string, traceKey: string): string {
    return createHmac("sha256", this.secret).update(traceKey).update("\u0000").update(value).digest("hex").slice(0, 12);
  }
}
