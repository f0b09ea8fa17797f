/** The PII shapes `redactPII()` knows. */
export type PiiKind = "email" | "phone" | "card" | "apiKey";

export const PII_KINDS: readonly PiiKind[] = ["apiKey", "email", "card", "phone"];

/** A match: where it starts and its text. */
export interface PiiMatch {
  index: number;
  text: string;
}

/** One pattern a redactor applies: every non-overlapping match in `text`, left to right. */
export interface PiiPattern {
  readonly kind: string;
  matches(text: string): Iterable<PiiMatch>;
}

/** A global-regex pattern; `accept` can veto a match (e.g. a failed Luhn check); empty matches never count. */
export function regexPattern(kind: string, regex: RegExp, accept?: (match: string) => boolean): PiiPattern {
  return {
    kind,
    *matches(text: string): Iterable<PiiMatch> {
      regex.lastIndex = 0;
      for (const m of text.matchAll(regex)) {
        if (m[0].length > 0 && (!accept || accept(m[0]))) yield { index: m.index, text: m[0] };
      }
    },
  };
}

// Every quantifier is bounded so that a hostile 10 MB string is scanned in linear time.
const API_KEY = new RegExp(
  [
    "\\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,256}",
    "\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b",
    "\\bgh[pousr]_[A-Za-z0-9]{20,255}",
    "\\bgithub_pat_[A-Za-z0-9_]{20,255}",
    "\\bxox[abposr]-[A-Za-z0-9-]{10,255}",
    "\\bAIza[0-9A-Za-z_-]{35}",
    "\\bBearer\\s{1,4}[A-Za-z0-9._~+/=-]{16,1024}",
    "\\beyJ[A-Za-z0-9_-]{8,2048}\\.[A-Za-z0-9_-]{8,2048}\\.[A-Za-z0-9_-]{8,2048}",
  ].join("|"),
  "g",
);

const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN = /[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b/y;

/**
 * Emails are found from each "@" outwards rather than by a regex tried at every position: a regex
 * with a 64-char local part costs 64 steps per character on a long run of letters (seconds for 10 MB).
 */
const EMAIL_PATTERN: PiiPattern = {
  kind: "email",
  *matches(text: string): Iterable<PiiMatch> {
    let from = 0;
    let at = text.indexOf("@");
    while (at >= 0) {
      let start = at;
      while (start > from && at - start < 64 && LOCAL_CHAR.test(text[start - 1]!)) start--;
      if (start < at) {
        DOMAIN.lastIndex = at + 1;
        const domain = DOMAIN.exec(text);
        if (domain) {
          const end = at + 1 + domain[0].length;
          yield { index: start, text: text.slice(start, end) };
          from = end;
          at = text.indexOf("@", end);
          continue;
        }
      }
      at = text.indexOf("@", at + 1);
    }
  },
};

// 13–19 digits, optionally grouped by single spaces or dashes; only Luhn-valid runs count.
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;

// International (+CC …) or North-American style with separators; 8–15 digits in total.
const PHONE = /(?<![\w+-])(?:\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}|(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4})(?![\w-])/g;

export function luhnValid(text: string): boolean {
  const digits = text.replace(/\D/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function phoneDigitsOk(text: string): boolean {
  const n = text.replace(/\D/g, "").length;
  return n >= 8 && n <= 15;
}

const BUILTIN: Record<PiiKind, PiiPattern> = {
  apiKey: regexPattern("api_key", API_KEY),
  email: EMAIL_PATTERN,
  card: regexPattern("card", CARD, luhnValid),
  phone: regexPattern("phone", PHONE, phoneDigitsOk),
};

/** The built-in patterns for `kinds`, in a fixed order (API keys first, so their digits are not read as cards). */
export function builtinPatterns(kinds: readonly PiiKind[]): PiiPattern[] {
  const wanted = new Set(kinds);
  for (const kind of wanted) {
    if (!(kind in BUILTIN)) throw new TypeError(`redactPII: unknown kind ${String(kind)}; expected one of ${PII_KINDS.join(", ")}`);
  }
  return PII_KINDS.filter((k) => wanted.has(k)).map((k) => BUILTIN[k]);
}

/** A user pattern, made global so every occurrence is replaced. */
export function userPattern(entry: RegExp | { name: string; pattern: RegExp }, index: number): PiiPattern {
  const regex = entry instanceof RegExp ? entry : entry?.pattern;
  if (!(regex instanceof RegExp)) {
    throw new TypeError(`redactPII: extraPatterns[${index}] must be a RegExp or { name, pattern: RegExp }`);
  }
  const name = entry instanceof RegExp ? "custom" : entry.name;
  if (typeof name !== "string" || name.length === 0) {
    throw new TypeError(`redactPII: extraPatterns[${index}].name must be a non-empty string`);
  }
  const flags = regex.flags.includes("g") ? regex.flags : `${regex.flags}g`;
  return regexPattern(name, new RegExp(regex.source, flags));
}
