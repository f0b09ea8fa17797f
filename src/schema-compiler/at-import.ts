import { Ajv, type Options } from "ajv";

// The JSON Schema compiler for bundles made with the `workerd`, `worker` or `browser` condition
// (package.json `imports`, `#schema-compiler`): ajv is imported with the module. Cloudflare Workers
// allows the code generation ajv does only while a Worker's modules load, where a tool is defined,
// and a bundle may have no node_modules to require it from later. A leaf: it imports nothing of
// relaytrace's.

/** A new ajv instance. */
export function createAjv(options: Options): Ajv {
  return new Ajv(options);
}
