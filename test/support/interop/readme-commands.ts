import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { interopCommands } from "../doc-blocks.js";
import { CLI, outputDir } from "./scenarios.js";

/**
 * The command lines of the block marked `<!-- readme-test: interop-NAME -->` in the README or a
 * guide in `docs/`. The interop suite runs them as written, with the ports of the programs it started.
 */
export async function readmeCommands(name: string): Promise<string[]> {
  return (await interopCommands(name)).lines;
}

/** Replaces each `localhost:PORT` of the documented commands with the address the test's program listens on. */
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
/** Where documented commands run: their `./relaytrace-out` lands with the other interop output. */
async function demoCwd(): Promise<string> {
  cwd ??= await outputDir("readme");
  return cwd;
}
