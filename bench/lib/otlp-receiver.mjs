// Starts bench/child/otlp-receiver.mjs and talks to it over IPC.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * A loopback OTLP/HTTP protobuf receiver in a child process. `url(source)` is the traces URL an
 * exporter sends to when its spans should be counted as `source`; `stats()` resolves with
 * { [source]: { requests, bytes, spans, undecodable } }.
 */
export async function startOtlpReceiver() {
  const file = fileURLToPath(new URL("../child/otlp-receiver.mjs", import.meta.url));
  // No inherited execArgv: a parent run with -e or --cpu-prof must not pass them on.
  const child = fork(file, [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m.port));
    child.once("exit", (code) => reject(new Error(`OTLP receiver exited with ${code}`)));
  });
  const stats = () =>
    new Promise((resolve) => {
      child.once("message", (m) => resolve(m.stats));
      child.send("stats");
    });
  const close = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.send("close");
    });
  return { url: (source) => `http://127.0.0.1:${port}/${source}/v1/traces`, stats, close };
}
