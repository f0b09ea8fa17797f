import { nodeFs } from "./node-fs.js";

/** Reads a UTF-8 file synchronously; throws where the runtime has no file system (see nodeFs). */
export function readTextFileSync(path: string): string {
  return nodeFs().readFileSync(path, "utf8");
}
