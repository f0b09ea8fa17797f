import { fstatSync, statSync } from "node:fs";

/** True for a regular file, or no file at all yet (the sink creates it). */
export function isRegularOrAbsent(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;
  }
}

/** Regular files, and character devices such as /dev/null; FIFOs and sockets would block a synchronous write. */
export function isWritableTarget(fd: number): boolean {
  const stat = fstatSync(fd);
  return stat.isFile() || stat.isCharacterDevice();
}
