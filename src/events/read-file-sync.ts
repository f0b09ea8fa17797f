/**
 * Reads a UTF-8 file synchronously with `node:fs`, fetched from the runtime when first needed
 * (`process.getBuiltinModule`) rather than imported: the core's import graph then holds no file
 * system, which runtimes without one (Cloudflare Workers) need. Throws where there is none.
 */
export function readTextFileSync(path: string): string {
  const runtime = (globalThis as { process?: Partial<Pick<NodeJS.Process, "getBuiltinModule">> }).process;
  const fs = runtime?.getBuiltinModule?.("node:fs");
  if (fs === undefined) throw new Error("this runtime has no file system");
  return fs.readFileSync(path, "utf8");
}
