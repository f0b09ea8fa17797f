// What `npm pack` puts in the tarball users install: the license package.json names, no source
// map that points at a file it does not ship, and no link in a shipped document to a file it
// lacks. The file list comes from `npm pack --dry-run` (no build is run: it reads the dist/ the
// suite's build wrote).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const built = existsSync(join(ROOT, "dist/src/index.js"));

function packedFiles(): Promise<string[]> {
  return new Promise((resolve, reject) =>
    execFile("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`npm pack --dry-run failed: ${stderr || String(error)}`));
      const [report] = JSON.parse(stdout) as { files: { path: string }[] }[];
      resolve(report!.files.map((f) => f.path));
    }),
  );
}

/** The relative link targets of a markdown text (inline links and images), without anchors; external and anchor-only links left out. */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
    targets.push(target.replace(/#.*$/, ""));
  }
  return targets;
}

describe.skipIf(!built)("the npm tarball", () => {
  let files: string[];
  let shipped: Set<string>;
  beforeAll(async () => {
    files = await packedFiles();
    shipped = new Set(files);
  }, 120_000);

  /** A path inside the tarball is there as a file, or as a directory holding shipped files. */
  const inTarball = (path: string) => shipped.has(path) || files.some((f) => f.startsWith(`${path.replace(/\/$/, "")}/`));

  it("ships the Apache-2.0 license that package.json declares", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string };
    expect(pkg.license).toBe("Apache-2.0");
    expect(shipped.has("LICENSE")).toBe(true);
    const text = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\//);
    expect(text).toContain("END OF TERMS AND CONDITIONS");
  });

  it("every source map it ships resolves: each source is shipped or embedded", () => {
    const unresolved: string[] = [];
    for (const file of files.filter((f) => f.endsWith(".map"))) {
      const map = JSON.parse(readFileSync(join(ROOT, file), "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
      map.sources.forEach((source, i) => {
        if (typeof map.sourcesContent?.[i] === "string") return;
        if (!shipped.has(normalize(join(dirname(file), source)))) unresolved.push(`${file}: ${source}`);
      });
    }
    expect(unresolved).toEqual([]);
  });

  it("every script it ships that names a source map names one it ships", () => {
    const dangling = files
      .filter((f) => f.endsWith(".js"))
      .flatMap((file) => {
        const named = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(ROOT, file), "utf8"))?.[1];
        if (named === undefined || named.startsWith("data:")) return [];
        return shipped.has(normalize(join(dirname(file), named))) ? [] : [`${file} → ${named}`];
      });
    expect(dangling).toEqual([]);
  });

  it("every relative link of its README and of the documents it ships leads to a file it ships", () => {
    const documents = files.filter((f) => f.endsWith(".md"));
    expect(documents).toContain("README.md");
    const broken = documents.flatMap((doc) =>
      relativeLinks(readFileSync(join(ROOT, doc), "utf8"))
        .map((target) => normalize(join(dirname(doc), decodeURI(target))))
        .filter((target) => !inTarball(target))
        .map((target) => `${doc} → ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
