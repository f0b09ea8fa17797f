import os from "node:os";

/** What the numbers were measured on; printed first and stored in results.json. */
export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 1073741824) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
  };
}
