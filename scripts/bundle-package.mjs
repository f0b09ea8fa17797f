// The build's last step: the package's entry points as a few files. Node spends most of an import
// of relaytrace resolving, reading and linking its ~230 modules, not running them, so each entry
// of package.json `exports` is bundled by esbuild from the tsc output in dist/ into dist/pkg/ (same
// relative paths), the modules entries share going to chunks in dist/pkg/chunks/ (one copy each:
// `relaytrace` and `relaytrace/exporters` share one runtime registry and one default runtime).
// Packages, Node built-ins and the package's own `#imports` stay imports, so an app's bundler still
// picks each `#imports` target by its conditions (a Worker's bundle takes the fetch-based exporter,
// leaves out the price table, takes ajv in up front). The tsc layout stays where it is: the CLI
// (`bin`), the `#imports` targets and the type declarations are read from there.
//   node scripts/bundle-package.mjs
import { readFile, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = "dist/pkg/";

const manifest = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
const targets = Object.values(manifest.exports).map((entry) => (typeof entry === "string" ? entry : entry.default));
const sources = targets.map((target) => {
  if (!target.startsWith(`./${OUT}`)) throw new Error(`package.json exports ${target}: expected a file under ./${OUT}`);
  return `./dist/${target.slice(`./${OUT}`.length)}`;
});

await rm(new URL(`../${OUT}`, import.meta.url), { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: sources,
  outbase: "dist",
  outdir: OUT,
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  packages: "external",
  external: ["#*"],
  legalComments: "none",
  logLevel: "warning",
});
