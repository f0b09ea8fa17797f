import { closestKey } from "../../events/option-keys.js";
import type { Tool } from "../tool.js";
import { bashTool } from "./bash.js";
import { editTool, readTool, writeTool } from "./files.js";
import { applyPatchTool } from "./patch.js";
import { questionTool } from "./question.js";
import { globTool, grepTool } from "./search.js";
import { todowriteTool } from "./todowrite.js";
import { webfetchTool } from "./webfetch.js";
import { Workspace } from "./workspace.js";

export {
  bashTool,
  readTool,
  writeTool,
  editTool,
  grepTool,
  globTool,
  webfetchTool,
  questionTool,
  applyPatchTool,
  todowriteTool,
  Workspace,
};

/** A built-in tool's name. */
export type BuiltinName = "bash" | "read" | "write" | "edit" | "grep" | "glob" | "webfetch" | "question" | "apply_patch" | "todowrite";

const FACTORIES: Record<BuiltinName, (workspace: Workspace) => Tool> = {
  bash: bashTool,
  read: readTool,
  write: writeTool,
  edit: editTool,
  grep: grepTool,
  glob: globTool,
  webfetch: () => webfetchTool(),
  question: () => questionTool(),
  apply_patch: applyPatchTool,
  todowrite: () => todowriteTool(),
};

/** Every built-in, in toolnexus's fixed order. */
export const ALL_BUILTINS: readonly BuiltinName[] = Object.freeze(Object.keys(FACTORIES) as BuiltinName[]);

/**
 * What `builtins: true` gives: everything but `bash` (runs any command) and `webfetch` (reaches
 * any host), which a toolkit gets only by naming them.
 */
export const SAFE_BUILTINS: readonly BuiltinName[] = Object.freeze(ALL_BUILTINS.filter((n) => n !== "bash" && n !== "webfetch"));

/** The built-ins `selection` names (`true`: the safe set), confined to `workspace`; an unknown name is a TypeError. */
export function builtinTools(selection: true | readonly string[], workspace: Workspace): Tool[] {
  const names = selection === true ? SAFE_BUILTINS : selection;
  for (const name of names) {
    if (name in FACTORIES) continue;
    const hint = closestKey(name, ALL_BUILTINS);
    throw new TypeError(
      `createToolkit: unknown built-in "${name}"${hint ? ` (did you mean "${hint}"?)` : ""}; built-ins: ${ALL_BUILTINS.join(", ")}`,
    );
  }
  // toolnexus's order, whatever order the names came in
  return ALL_BUILTINS.filter((n) => names.includes(n)).map((n) => FACTORIES[n](workspace));
}
