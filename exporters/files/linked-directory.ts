import { lstatSync } from "node:fs";

/** True when `path` itself (its last component) is a symbolic link; false when it is anything else or absent. */
export function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Throws when the output directory an exporter was given is a symbolic link: a link planted
 * there would send every file the exporter writes wherever it points. `followSymlinks: true`
 * is the owner's way of saying the link is theirs.
 */
export function refuseLinkedDirectory(owner: string, directory: string, followSymlinks: boolean): void {
  if (!followSymlinks && isSymbolicLink(directory)) {
    throw new Error(
      `${owner}: outputDirectory ${directory} is a symbolic link; exporters do not write through links unless followSymlinks is true`,
    );
  }
}
