import type * as GenaiPrices from "@pydantic/genai-prices";
import { importPriceTable } from "#price-table";
import { providedPriceTable } from "./price-table-provided.js";

/** The package whose bundled table prices a call no `pricing` entry covers. */
export const PRICE_TABLE_PACKAGE = "@pydantic/genai-prices";

export type PriceTableModule = typeof GenaiPrices;

/** Why there is no table to price with right now. */
export type PriceTableAbsence = "loading" | "unavailable";

interface NodeModuleApi {
  createRequire(from: string): (id: string) => unknown;
}
interface NodeUrlApi {
  fileURLToPath(url: string): string;
}
interface NodeFsApi {
  readFileSync(path: string, encoding: "utf8"): string;
  existsSync?(path: string): boolean;
}

interface LoaderState {
  table?: PriceTableModule;
  /** the package version the table came from, when its package.json could be read */
  version?: string;
  pending?: Promise<void>;
  error?: string;
}

// One table per process however many runtimes (or copies of relaytrace) price with it: it is
// read-only data, 5 MB of heap once loaded.
const KEY = Symbol.for("relaytrace.priceTable");
const holder = globalThis as unknown as Record<symbol, LoaderState | undefined>;
const state: LoaderState = holder[KEY] ?? (holder[KEY] = {});

function builtin<T>(name: string): T | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return runtime?.getBuiltinModule?.(name) as T | undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where Node (or a runtime that imitates it) can load the table synchronously: the file of its ES
 * module entry and a `require` that loads an ES module. Undefined in a bundle on Workers or in a
 * browser, where the package is no file and the table comes through `import()`.
 */
function syncSource(): { file: string; require: (id: string) => unknown } | undefined {
  const moduleApi = builtin<NodeModuleApi>("node:module");
  const urlApi = builtin<NodeUrlApi>("node:url");
  const meta = import.meta as { resolve?: (specifier: string) => string };
  if (moduleApi === undefined || urlApi === undefined || typeof meta.resolve !== "function") return undefined;
  try {
    const url = meta.resolve(PRICE_TABLE_PACKAGE);
    if (!url.startsWith("file:")) return undefined;
    const file = urlApi.fileURLToPath(url);
    // workerd with nodejs_compat offers node:module and resolves to a file: URL, but a bundle has
    // no such file: there the table must come through import(), started when the call opens.
    if (builtin<NodeFsApi>("node:fs")?.existsSync?.(file) !== true) return undefined;
    return { file, require: moduleApi.createRequire(import.meta.url) };
  } catch {
    return undefined;
  }
}

/** The version in the package.json beside the table's entry (`<pkg>/dist/index.js`), when there is a file system. */
function versionNear(entryFile: string): string | undefined {
  const fs = builtin<NodeFsApi>("node:fs");
  if (fs === undefined) return undefined;
  const dir = entryFile.replace(/[\\/][^\\/]*$/, "");
  for (const candidate of [`${dir}/../package.json`, `${dir}/package.json`]) {
    try {
      const pkg = JSON.parse(fs.readFileSync(candidate, "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === PRICE_TABLE_PACKAGE && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function accept(table: unknown): void {
  if (typeof (table as Partial<PriceTableModule> | null)?.calcPrice !== "function") {
    state.error = `${PRICE_TABLE_PACKAGE} has no calcPrice export`;
    return;
  }
  state.table = table as PriceTableModule;
}

/**
 * Called when a call that may be priced from the table opens. Where the table can only come
 * asynchronously (a Worker or browser bundle), its `import()` starts here, so it has loaded by the
 * time the reply arrives. Where Node can load it synchronously nothing happens yet: the first
 * priced call's end loads it (`priceTable`), and a runtime that prices nothing never does.
 */
export function preparePriceTable(): void {
  if (state.table !== undefined || state.pending !== undefined || state.error !== undefined) return;
  if (syncSource() === undefined) startImport();
}

function startImport(): void {
  // Provided by `import "relaytrace/prices"` (a Worker or browser bundle): there at once.
  const provided = providedPriceTable();
  if (provided !== undefined) {
    accept(provided);
    return;
  }
  let loading: Promise<unknown>;
  try {
    loading = importPriceTable();
  } catch (error) {
    // A bundle without the table (package.json "imports", #price-table): why, and the import to add.
    state.error = error instanceof Error ? error.message : String(error);
    return;
  }
  state.pending = loading.then(
    (table) => {
      accept(table);
      state.pending = undefined;
    },
    (error: unknown) => {
      state.error = `${PRICE_TABLE_PACKAGE} could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
      state.pending = undefined;
    },
  );
}

/**
 * The bundled price table: loaded synchronously on first use where Node can (an ES module
 * `require`, about 50 ms and 5 MB once), else what an earlier `preparePriceTable` imported. When
 * there is none, why: still loading (the call goes unpriced) or unavailable.
 */
export function priceTable(): PriceTableModule | PriceTableAbsence {
  if (state.table !== undefined) return state.table;
  if (state.error !== undefined) return "unavailable";
  if (state.pending !== undefined) return "loading";
  const source = syncSource();
  if (source === undefined) {
    startImport();
    return state.table ?? (state.error === undefined ? "loading" : "unavailable");
  }
  try {
    accept(source.require(source.file));
    state.version = versionNear(source.file);
  } catch {
    // A runtime whose require cannot load an ES module: the import() path, for the next calls.
    startImport();
    return "loading";
  }
  return state.table ?? "unavailable";
}

/** Why the table is unavailable, when it is. */
export function priceTableError(): string | undefined {
  return state.error;
}

/** `@pydantic/genai-prices <version>` as priced costs name their source; without the version where it cannot be read. */
export function priceTableSource(): string {
  return state.version === undefined ? PRICE_TABLE_PACKAGE : `${PRICE_TABLE_PACKAGE} ${state.version}`;
}

/** The installed table's version, read from its package.json without loading the table (what `relaytrace --version` shows). */
export function installedPriceTableVersion(): string | undefined {
  if (state.version !== undefined) return state.version;
  const source = syncSource();
  return source === undefined ? undefined : versionNear(source.file);
}
