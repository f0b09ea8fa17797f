import type * as Yaml from "yaml";

// The yaml package reads skills' front matter and nothing else: it is loaded when skills are first
// read, not when relaytrace is imported.

let yaml: typeof Yaml | undefined;

/**
 * Imports the YAML parser. `createToolkit` awaits this before it reads skills; the literal
 * specifier keeps the parser in an app's bundle.
 */
export async function loadYamlParser(): Promise<void> {
  yaml ??= await import("yaml");
}

/**
 * The yaml package's `parse`. Where `loadYamlParser` has not run yet (`listSkills` called on its
 * own, which is synchronous), the package is required synchronously from where relaytrace is
 * installed; throws, saying so, where that is not possible.
 */
export function yamlParser(): (text: string) => unknown {
  yaml ??= requireYaml();
  return yaml.parse;
}

function requireYaml(): typeof Yaml {
  const runtime = (globalThis as { process?: Partial<Pick<NodeJS.Process, "getBuiltinModule">> }).process;
  const nodeModule = runtime?.getBuiltinModule?.("node:module");
  try {
    if (nodeModule === undefined) throw new Error("this runtime has no node:module");
    return nodeModule.createRequire(import.meta.url)("yaml") as typeof Yaml;
  } catch (error) {
    throw new Error(
      `listSkills: could not load the yaml package (${error instanceof Error ? error.message : String(error)}); ` +
        "await createToolkit({ skills }) instead, which imports it",
      { cause: error },
    );
  }
}
