import type { ToolDeclaration } from "./providers/types.js";
import type { ToolResult } from "./pending.js";
import type { AfterLlmEvent, AfterToolEvent, BeforeLlmEvent, BeforeToolEvent, Hooks } from "./types.js";

/**
 * Several hook sets run as one: `beforeLLM` and `afterTool` are pipelines, `beforeTool` passes
 * `{args}` rewrites on and stops at the first `{result}`, `afterLLM` runs every slot.
 */
export interface ChainedHooks {
  /** Whether a `beforeLLM` slot is set: it sees the transcript, and may edit it in place. */
  readonly seesMessages: boolean;
  beforeLLM(e: BeforeLlmEvent): Promise<{ messages?: unknown[]; tools?: ToolDeclaration[] }>;
  afterLLM(e: AfterLlmEvent): Promise<void>;
  beforeTool(e: BeforeToolEvent): Promise<{ args?: Record<string, unknown>; result?: ToolResult }>;
  afterTool(e: AfterToolEvent): Promise<{ result?: ToolResult }>;
}

/**
 * Combines hook sets (in order) into the single set the loop calls; `ClientOptions.hooks` goes
 * through it, and it is exported so a host can compose its own hook sets the same way.
 */
export function chainHooks(...sets: (Hooks | Hooks[] | undefined)[]): ChainedHooks {
  const slots: Hooks[] = sets.flat().filter((h): h is Hooks => !!h);
  return {
    seesMessages: slots.some((h) => h.beforeLLM !== undefined),
    async beforeLLM(e: BeforeLlmEvent) {
      let messages: unknown[] | undefined;
      let tools: ToolDeclaration[] | undefined;
      for (const h of slots) {
        if (!h.beforeLLM) continue;
        const r = await h.beforeLLM({ ...e, messages: messages ?? e.messages, tools: tools ?? e.tools });
        if (r?.messages) messages = r.messages;
        if (r?.tools) tools = r.tools;
      }
      const out: { messages?: unknown[]; tools?: ToolDeclaration[] } = {};
      if (messages) out.messages = messages;
      if (tools) out.tools = tools;
      return out;
    },
    async afterLLM(e: AfterLlmEvent) {
      for (const h of slots) if (h.afterLLM) await h.afterLLM(e);
    },
    async beforeTool(e: BeforeToolEvent) {
      let args = e.args;
      let rewritten = false;
      for (const h of slots) {
        if (!h.beforeTool) continue;
        const r = await h.beforeTool({ ...e, args });
        if (r?.result) return { result: r.result, args };
        if (r?.args) {
          args = r.args;
          rewritten = true;
        }
      }
      return rewritten ? { args } : {};
    },
    async afterTool(e: AfterToolEvent) {
      let result: ToolResult = e.result;
      let replaced = false;
      for (const h of slots) {
        if (!h.afterTool) continue;
        const r = await h.afterTool({ ...e, result });
        if (r?.result) {
          result = r.result;
          replaced = true;
        }
      }
      return replaced ? { result } : {};
    },
  };
}
