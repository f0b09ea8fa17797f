import { afterEach } from "vitest";
import { startScriptedProvider, type ScriptedProvider, type ScriptedTurn } from "../../exporters/testing/scripted-provider.js";
import type { Dialect } from "../../src/wire/index.js";

/** Starts scripted providers on 127.0.0.1 for one test file and closes them after each test. */
export function scriptedProviders(): (turns: ScriptedTurn[], style?: Dialect) => Promise<ScriptedProvider> {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });
  return async (turns, style = "openai") => {
    const p = await startScriptedProvider({ style, turns });
    closers.push(p.close);
    return p;
  };
}
