import { anthropicCodec } from "./anthropic-codec.js";
import { openaiCodec } from "./openai-codec.js";
import type { ProviderCodec, ProviderStyle } from "./types.js";

/** The codec for a provider style; an unknown style is a caller error that names the choices. */
export function codecFor(style: ProviderStyle): ProviderCodec {
  if (style === "openai") return openaiCodec;
  if (style === "anthropic") return anthropicCodec;
  throw new TypeError(`unknown provider style ${JSON.stringify(style)}; expected "openai" or "anthropic"`);
}
