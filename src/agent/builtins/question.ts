import { pending } from "../pending.js";
import { defineTool, type Tool } from "../tool.js";

interface Question {
  question?: unknown;
  options?: unknown;
}

/**
 * The request prompt: each question's text in order, with ` (options: a, b)` when it lists
 * options, one per line. `header` is not rendered (it stays in `data.questions`). The same bytes
 * as toolnexus, so a host that shows the prompt sees one text whichever library asked.
 */
export function renderQuestions(questions: readonly unknown[]): string {
  return questions
    .map((q) => {
      const item = (typeof q === "object" && q !== null ? q : {}) as Question;
      const text = typeof item.question === "string" ? item.question : "";
      const options = Array.isArray(item.options) ? item.options : [];
      return options.length > 0 ? `${text} (options: ${options.map(String).join(", ")})` : text;
    })
    .join("\n");
}

/**
 * Asks the user one or more questions (toolnexus's `{questions: [...]}` schema): suspends with a
 * `question` request carrying `data.questions`; once answered, the answer's `data` (as JSON) is the result.
 */
export function questionTool(): Tool {
  return defineTool({
    name: "question",
    description: "Ask the user one or more questions and wait for the answers. Never ask for credentials.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        questions: {
          type: "array",
          description: "Questions to ask",
          items: {
            type: "object",
            properties: {
              question: { type: "string" },
              header: { type: "string" },
              options: { type: "array", items: { type: "string" } },
              multiple: { type: "boolean" },
            },
            required: ["question"],
          },
        },
      },
      required: ["questions"],
      additionalProperties: false,
    },
    execute(args, ctx) {
      const questions = Array.isArray(args.questions) ? args.questions : [];
      if (ctx.answer) return JSON.stringify(ctx.answer.data ?? {});
      return pending({ kind: "question", prompt: renderQuestions(questions), data: { questions } });
    },
  });
}
