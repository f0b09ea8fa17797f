/**
 * `node:fs`, fetched from the runtime when a file is first read (`process.getBuiltinModule`)
 * rather than imported: importing relaytrace then loads no file system module, which runtimes
 * without one (Cloudflare Workers) need and every app's start-up is spared. Throws where there is none.
 */
export function nodeFs(): typeof import("node:fs") {
  const runtime = (globalThis as { process?: Partial<Pick<NodeJS.Process, "getBuiltinModule">> }).process;
  const fs = runtime?.getBuiltinModule?.("node:fs");
  if (fs === undefined) throw new Error("this runtime has no file system");
  return fs;
}
