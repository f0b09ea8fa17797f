/**
 * The credential policy for request headers: the one rule every path that records headers
 * (the runtime's `llm` events, the loop, translate, error scrubbing) follows.
 *
 * Headers are recorded by allow-list, as careful HTTP instrumentations do: a header whose name
 * is on the list keeps its value; any other header keeps its name and loses its value, which
 * becomes {@link REDACTED}. A new or custom auth header (`x-auth-token`, `helicone-auth`,
 * `ocp-apim-subscription-key`, …) is therefore safe by default; users extend the list with
 * headers they know to be harmless.
 */

/** What stands in for a header value, URL part or echoed secret that is not recorded. */
export const REDACTED = "[redacted]";

/**
 * Header names (lower case) whose values are recorded as sent: content negotiation, the
 * client's identity, provider API versions and trace context. Nothing here carries a secret.
 */
export const RECORDED_HEADERS: readonly string[] = Object.freeze([
  "accept",
  "accept-encoding",
  "accept-language",
  "anthropic-beta",
  "anthropic-version",
  "content-encoding",
  "content-length",
  "content-type",
  "openai-beta",
  "openai-version",
  "traceparent",
  "tracestate",
  "user-agent",
  "x-goog-api-client",
  "x-request-id",
  "x-stainless-arch",
  "x-stainless-lang",
  "x-stainless-os",
  "x-stainless-package-version",
  "x-stainless-runtime",
  "x-stainless-runtime-version",
]);

const DEFAULT_RECORDED: ReadonlySet<string> = new Set(RECORDED_HEADERS);

/** Shorter values are not scrubbed from text: they would match ordinary words. */
const MIN_SCRUBBED_LENGTH = 8;

/** Decides which header values may be recorded, and scrubs the others from free text. */
export class HeaderPolicy {
  private readonly recorded: ReadonlySet<string>;

  /** @param extraRecorded header names (any case) whose values the user allows to be recorded */
  constructor(extraRecorded: Iterable<string> = []) {
    const extra = [...extraRecorded].map((name) => name.toLowerCase());
    this.recorded = extra.length === 0 ? DEFAULT_RECORDED : new Set([...DEFAULT_RECORDED, ...extra]);
  }

  /** True when the header's value may appear in events and spans. */
  records(name: string): boolean {
    return this.recorded.has(name.toLowerCase());
  }

  /** The event copy of `headers`: every name kept, values of unlisted headers replaced by {@link REDACTED}. */
  recordable<V>(headers: Readonly<Record<string, V>>): Record<string, V | string> {
    const out: Record<string, V | string> = {};
    for (const [name, value] of Object.entries(headers)) out[name] = this.records(name) ? value : REDACTED;
    return out;
  }

  /**
   * `text` with the values of unrecorded headers removed (a provider's error body may echo the
   * key back, and error messages reach span status and diagnostics). Each whole value and each of
   * its space-, `;`-, `,`- or `=`-separated parts of 8+ characters (the token after `Bearer`, a
   * cookie value) is replaced.
   */
  scrub(text: string, headers: Readonly<Record<string, unknown>> | undefined): string {
    if (headers === undefined || text === "") return text;
    const secrets = new Set<string>();
    for (const [name, value] of Object.entries(headers)) {
      if (this.records(name) || typeof value !== "string") continue;
      for (const part of [value, ...value.split(/[\s;,=]+/)]) if (part.length >= MIN_SCRUBBED_LENGTH) secrets.add(part);
    }
    if (secrets.size === 0) return text;
    let out = text;
    // Longest first, so a whole value goes before the token inside it.
    for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(REDACTED);
    return out;
  }
}

/** The policy with the default allow-list. */
export const DEFAULT_HEADER_POLICY = new HeaderPolicy();
