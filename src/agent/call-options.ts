import { checkOptionKeys } from "../events/option-keys.js";
import { promptProfile } from "../runtime/prompt.js";

/** The keys each per-call option bag accepts; anything else is a typo that would otherwise be ignored. */
export const CALL_OPTION_KEYS = Object.freeze({
  run: ["toolkit", "history", "signal", "onText", "context", "prompt"],
  ask: ["toolkit", "id", "signal", "onText", "context", "prompt"],
  stream: ["toolkit", "history", "id", "signal", "context", "prompt"],
  runWithAnswer: ["toolkit", "history", "pending", "answer", "halt", "signal", "context", "prompt"],
  askWithAnswer: ["toolkit", "id", "pending", "answer", "halt", "signal", "context", "prompt"],
  translate: ["messages", "tools", "toolkit", "toolChoice", "system", "maxTokens", "signal"],
} as const satisfies Record<string, readonly string[]>);

export type CallName = keyof typeof CALL_OPTION_KEYS;

/** Throws a TypeError naming an unknown key of a per-call option bag, with the closest known key; a bad `prompt` names its field. */
export function checkCallOptions(call: CallName, options: unknown): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null) throw new TypeError(`${call}: options must be an object`);
  const allowed: readonly string[] = CALL_OPTION_KEYS[call];
  checkOptionKeys(call, options, allowed);
  const o = options as Record<string, unknown>;
  if (o.onText !== undefined && typeof o.onText !== "function") throw new TypeError(`${call}: option "onText" must be a function`);
  if (o.prompt !== undefined) promptProfile(o.prompt);
}
