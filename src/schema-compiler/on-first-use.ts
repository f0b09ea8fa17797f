import type { Ajv, Options } from "ajv";

// The JSON Schema compiler for Node, Bun and Deno (package.json `imports`, `#schema-compiler`):
// ajv is some 60 modules, so it is required when the first validator is made, not when relaytrace
// is imported. `defineTool` is synchronous, hence `require` rather than `import()`. A leaf: it
// imports nothing of relaytrace's.

let ajvClass: typeof Ajv | undefined;

/** A new ajv instance; the first call loads the ajv package from where relaytrace is installed. */
export function createAjv(options: Options): Ajv {
  ajvClass ??= requireAjv();
  return new ajvClass(options);
}

function requireAjv(): typeof Ajv {
  const runtime = (globalThis as { process?: Partial<Pick<NodeJS.Process, "getBuiltinModule">> }).process;
  const nodeModule = runtime?.getBuiltinModule?.("node:module");
  try {
    if (nodeModule === undefined) throw new Error("this runtime has no node:module");
    return (nodeModule.createRequire(import.meta.url)("ajv") as { Ajv: typeof Ajv }).Ajv;
  } catch (error) {
    throw new Error(
      `relaytrace could not load the ajv package to compile a JSON Schema (${error instanceof Error ? error.message : String(error)}); ` +
        'bundles that leave node_modules behind need the "worker" condition, which imports it with relaytrace',
      { cause: error },
    );
  }
}
