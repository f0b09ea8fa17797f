import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Runs a bench child script with node flags (under `nodeBinary`, by default this Node); resolves
 * with its last stdout line parsed as JSON.
 */
export function runChild(script, args, nodeFlags = [], nodeBinary = process.execPath) {
  const file = fileURLToPath(new URL(`../child/${script}`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBinary, [...nodeFlags, file, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const last = out.trim().split("\n").pop();
      if (code !== 0) return reject(new Error(`${script} exited with ${signal ?? code}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${script} printed no JSON result`));
      }
    });
  });
}
