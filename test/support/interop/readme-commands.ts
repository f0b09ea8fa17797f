import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { CLI, outputDir, ROOT } from "./scenarios.js";

/**
 * The command lines of one README block marked `<!-- readme-test: interop-NAME -->`. The
 * interop suite runs them as written, with the ports of the programs it started.
 */
export async function readmeCommands(name: string): Promise<string[]> {
  const lines = (await readFile(join(ROOT, "README.md"), "utf8")).split("\n");
  const marker = lines.indexOf(`<!-- readme-test: interop-${name} -->`);
  if (marker < 0 || lines[marker + 1] !== "```sh") throw new Error(`README has no sh block marked interop-${name}`);
  const end = lines.indexOf("```", marker + 2);
  return lines.slice(marker + 2, end);
}

/** Replaces each `localhost:PORT` of the README with the address the test's program listens on. */
export function withPorts(line: string, ports: Record<number, string>): string {
  return line.replace(/localhost:(\d+)/g, (whole, port: string) => ports[Number(port)] ?? whole);
}

/** `npx relaytrace ARGS…` run with this repository's built CLI. */
export async function runRelaytraceLine(line: string): Promise<string> {
  if (!line.startsWith("npx relaytrace ")) throw new Error(`not a relaytrace command: ${line}`);
  const args = line.slice("npx relaytrace ".length).split(/\s+/);
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], { cwd: await demoCwd(), timeout: 60_000 });
  return stdout;
}

/** `curl -s 'URL'`: the URL, fetched; the parsed JSON body. */
export async function runCurlLine(line: string): Promise<unknown> {
  const url = /^curl -s '([^']+)'$/.exec(line)?.[1];
  if (!url) throw new Error(`not a curl -s 'URL' line: ${line}`);
  return (await fetch(url)).json();
}

/** Environment assignments that start a command line (`A=1 B=2 program …`). */
export function leadingEnv(line: string): { env: Record<string, string>; rest: string } {
  const env: Record<string, string> = {};
  let rest = line;
  for (let m = /^([A-Z_][A-Z0-9_]*)=(\S*)\s+/.exec(rest); m; m = /^([A-Z_][A-Z0-9_]*)=(\S*)\s+/.exec(rest)) {
    env[m[1]!] = m[2]!;
    rest = rest.slice(m[0].length);
  }
  return { env, rest };
}

let cwd: string | undefined;
/** Where README commands run: their `./relaytrace-out` lands with the other interop output. */
async function demoCwd(): Promise<string> {
  cwd ??= await outputDir("readme");
  return cwd;
}
