import type { Tool } from "../tool.js";
import { bashTool } from "./bash.js";
import { readTool, writeTool } from "./files.js";
import { questionTool } from "./question.js";

export { bashTool, readTool, writeTool, questionTool };

/** The built-in tools, in declaration order. */
export function builtinTools(): Tool[] {
  return [readTool(), writeTool(), bashTool(), questionTool()];
}
