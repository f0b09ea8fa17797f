// Imports the built entry points named on the command line while every source of randomness,
// timers, AbortController and the file system throw, and prints one JSON line: the calls that were
// made during import (none expected) and whether each import succeeded. Runtimes such as Cloudflare
// Workers refuse these operations in a module's top level, so the package must do none of them there.
//   node test/runtimes/import-probe.mjs dist/src/index.js dist/exporters/index.js
import * as fs from "node:fs";
import * as fsPromises from "node:fs/promises";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const calls = [];
const restores = [];

function forbid(target, key, label) {
  const original = target[key];
  if (typeof original !== "function") return;
  const replacement = function (...args) {
    // Node's own module loader reads the files being imported (on some Node paths through
    // fs.readFileSync, which then calls fs.openSync): a call made from Node's own code passes; one
    // made from any module's code is what this probe catches.
    const caller = new Error().stack.split("\n")[2] ?? "";
    if (/\(node:|at node:/.test(caller)) return Reflect.apply(original, this, args);
    calls.push(label);
    if (process.env.PROBE_STACKS) console.error(label, new Error().stack);
    throw new Error(`${label} called during import`);
  };
  try {
    Object.defineProperty(target, key, { value: replacement, configurable: true, writable: true });
    restores.push(() => Object.defineProperty(target, key, { value: original, configurable: true, writable: true }));
  } catch {
    // A frozen built-in stays as it is.
  }
}

forbid(globalThis.crypto, "getRandomValues", "crypto.getRandomValues");
forbid(globalThis.crypto, "randomUUID", "crypto.randomUUID");
const nodeCrypto = require("node:crypto");
for (const key of ["randomBytes", "randomUUID", "randomFillSync", "randomFill", "randomInt", "getRandomValues"])
  forbid(nodeCrypto, key, `node:crypto.${key}`);
for (const key of ["setTimeout", "setInterval", "setImmediate", "AbortController"]) forbid(globalThis, key, key);
const fsCjs = require("node:fs");
for (const key of Object.keys(fsCjs)) if (typeof fsCjs[key] === "function" && /^[a-z]/.test(key)) forbid(fsCjs, key, `fs.${key}`);
const fsPromisesCjs = require("node:fs/promises");
for (const key of Object.keys(fsPromisesCjs))
  if (typeof fsPromisesCjs[key] === "function") forbid(fsPromisesCjs, key, `fs/promises.${key}`);
// ESM named imports of built-ins (`import { readFileSync } from "node:fs"`) see the replacements only after this.
syncBuiltinESMExports();
void fs;
void fsPromises;

const results = [];
for (const entry of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(entry).href);
    results.push({ entry, ok: true });
  } catch (error) {
    results.push({ entry, ok: false, error: String(error && error.stack ? error.stack : error) });
  }
}
for (const restore of restores) restore();
syncBuiltinESMExports();
console.log(JSON.stringify({ calls: [...new Set(calls)], results }));
