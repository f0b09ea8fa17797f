import { pending } from "../pending.js";
import { defineTool, type Tool } from "../tool.js";

/** Asks the user a question: suspends with kind `question`; the answer's `data.text` is the result. */
export function questionTool(): Tool {
  return defineTool({
    name: "question",
    description: "Ask the user a question and wait for the answer. Never ask for credentials.",
    source: "builtin",
    inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
    execute(args, ctx) {
      if (!ctx.answer) return pending({ kind: "question", prompt: String(args.question) });
      const text = ctx.answer.data?.text ?? ctx.answer.data?.answer;
      return typeof text === "string" ? text : JSON.stringify(ctx.answer.data ?? {});
    },
  });
}
