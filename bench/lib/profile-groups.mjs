// Self time of a V8 CPU profile (Profiler.stop's `profile`) by function and by where the code lives.
import path from "node:path";
import { fileURLToPath } from "node:url";

const SPECIAL = { "(garbage collector)": "GC", "(program)": "V8 / native (program)", "(idle)": "idle", "(root)": "idle" };

function filePathOf(url) {
  if (!url) return "";
  if (url.startsWith("file://")) {
    try {
      return fileURLToPath(url);
    } catch {
      return url;
    }
  }
  return url;
}

/** Which group a call frame belongs to, and its module name within that group. */
function classify(frame, relaytraceDist, benchDir) {
  if (SPECIAL[frame.functionName] && !frame.url) return { group: SPECIAL[frame.functionName], module: frame.functionName };
  const file = filePathOf(frame.url);
  if (!file) return { group: "native (V8 builtins, Node bindings)", module: "(native)" };
  if (file.startsWith("node:") || !path.isAbsolute(file)) return { group: "Node internals", module: file };
  const nm = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (file.startsWith(relaytraceDist)) return { group: "relaytrace", module: path.relative(relaytraceDist, file) };
  if (nm >= 0) {
    const rest = file.slice(nm + 14).split(path.sep);
    const pkg = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    return { group: pkg.startsWith("@opentelemetry/") ? "OpenTelemetry" : "other packages", module: pkg };
  }
  if (file.startsWith(benchDir)) return { group: "bench harness", module: path.relative(benchDir, file) };
  return { group: "other", module: file };
}

export function groupProfile(profile, { relaytraceDist, benchDir }) {
  const dist = path.resolve(relaytraceDist) + path.sep;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  // A sample stands for the time until the next one (as DevTools counts it): a wait for I/O then
  // lands on the "(idle)" sample taken during it, not on whatever ran when the wait ended.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const functions = new Map();
  const groups = new Map();
  const modules = new Map();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    const { group, module } = classify(frame, dist, path.resolve(benchDir) + path.sep);
    if (group === "idle") continue;
    busyUs += us;
    groups.set(group, (groups.get(group) ?? 0) + us);
    if (group === "relaytrace") modules.set(module, (modules.get(module) ?? 0) + us);
    const location = frame.url
      ? `${group === "relaytrace" || group === "bench harness" ? module : module.split(path.sep).pop()}:${frame.lineNumber + 1}`
      : "";
    const key = `${frame.functionName}|${location}`;
    const f = functions.get(key) ?? { name: frame.functionName || "(anonymous)", group, location, us: 0 };
    f.us += us;
    functions.set(key, f);
  }
  const sorted = (m, k) => [...m].map(([name, us]) => ({ [k]: name, us })).sort((a, b) => b.us - a.us);
  return {
    samples: profile.samples.length,
    busyUs,
    groups: sorted(groups, "group"),
    relaytraceModules: sorted(modules, "module"),
    functions: [...functions.values()].sort((a, b) => b.us - a.us),
  };
}
