import { defineTool, type Tool } from "../tool.js";

/** The built-in `todowrite` tool: replaces the todo list and echoes it back rendered (`[x] done`, `[ ] open`); it keeps no state. */
export function todowriteTool(): Tool {
  return defineTool({
    name: "todowrite",
    description: "Replace the session todo list. Returns the rendered list.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        todos: {
          type: "array",
          description: "The full todo list to store",
          items: {
            type: "object",
            properties: { id: { type: "string" }, text: { type: "string" }, completed: { type: "boolean" } },
            required: ["id", "text", "completed"],
          },
        },
      },
      required: ["todos"],
      additionalProperties: false,
    },
    execute(args) {
      const todos = args.todos as { text: string; completed: boolean }[];
      const rendered = todos.map((t) => `[${t.completed ? "x" : " "}] ${t.text}`).join("\n");
      return rendered || "(no todos)";
    },
  });
}
