import { declareOptions, is, type OptionsDeclaration } from "../events/option-spec.js";
import { promptProfile } from "../runtime/prompt.js";
import type { TranslateOptions } from "./translate.js";
import type { AskOptions, AskResumeOptions, ResumeOptions, RunOptions, StreamOptions } from "./types.js";

// Each per-call option bag of the client, declared once: the keys, the type checks and the
// messages derive from these (a misspelt key is an error, not an option silently ignored).
/** A bad `prompt` throws promptProfile's error, which names the field. */
export const promptOption = (value: unknown): undefined => void promptProfile(value);
const BASE = { context: is.object, toolkit: is.object, signal: is.signal, prompt: promptOption } as const;
const RESUME = { ...BASE, pending: is.object, answer: is.object, halt: is.anything } as const;

const CALL_OPTIONS = {
  run: declareOptions<RunOptions>("run", { ...BASE, history: is.array, onText: is.function }),
  ask: declareOptions<AskOptions>("ask", { ...BASE, id: is.string, onText: is.function }),
  stream: declareOptions<StreamOptions>("stream", { ...BASE, history: is.array, id: is.string }),
  runWithAnswer: declareOptions<ResumeOptions>("runWithAnswer", { ...RESUME, history: is.array }),
  askWithAnswer: declareOptions<AskResumeOptions>("askWithAnswer", { ...RESUME, id: is.string }),
  translate: declareOptions<TranslateOptions>("translate", {
    messages: is.array,
    tools: is.array,
    toolkit: is.object,
    toolChoice: is.anything,
    system: is.string,
    maxTokens: is.positiveInteger,
    signal: is.signal,
  }),
} as const satisfies Record<string, OptionsDeclaration<object>>;

export type CallName = keyof typeof CALL_OPTIONS;

/** Throws a TypeError naming an unknown key (with the closest known one) or a value of the wrong type. */
export function checkCallOptions(call: CallName, options: unknown): void {
  if (options === undefined) return;
  CALL_OPTIONS[call].check(options);
}
