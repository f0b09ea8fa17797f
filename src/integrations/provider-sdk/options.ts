import { check, is, type OptionsSpec } from "../../events/option-spec.js";
import { defaultRuntime } from "../../runtime/default-runtime.js";
import type { Runtime } from "../../runtime/runtime.js";

/** Options of `traceOpenAI`, `traceAnthropic` and `traceGoogleGenAI`. */
export interface ProviderSdkOptions {
  /** The runtime the calls are recorded on. Default: `defaultRuntime()`, looked up at each call (not when wrapping). */
  runtime?: Runtime;
  /**
   * `false` keeps every message out of the events: the request's transcript and system prompt and
   * the reply's text, reasoning and tool-call arguments. Models, tool definitions, tool names and
   * call ids, usage, finish reasons, timings and errors remain. Default `true`.
   */
  captureContent?: boolean;
  /** The `llm` scope's name. Default: the route (`openai.chat_completions`, `anthropic.messages`, …). */
  name?: string;
}

/** A runtime from any copy of the package: checked by its methods, not its class. */
const isRuntime = check("a Runtime (from createRuntime)", (v) => typeof (v as Runtime | null)?.startLlm === "function");

/** The checks of the options every wrapper takes; a wrapper declares its own with these (and any of its own). */
export const PROVIDER_SDK_SPEC: OptionsSpec<ProviderSdkOptions> = {
  runtime: isRuntime,
  captureContent: is.boolean,
  name: is.nonEmptyString,
};

/** The settled options a wrapped client's calls read. */
export interface CallSettings {
  runtime(): Runtime;
  readonly captureContent: boolean;
  readonly name: string | undefined;
}

export function callSettings(options: ProviderSdkOptions): CallSettings {
  const explicit = options.runtime;
  return {
    // Resolved per call: a default runtime the app sets up after wrapping (setDefaultRuntime) still applies.
    runtime: explicit === undefined ? defaultRuntime : () => explicit,
    captureContent: options.captureContent !== false,
    name: options.name,
  };
}
