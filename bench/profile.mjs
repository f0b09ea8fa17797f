// Where the time goes: one variant under the V8 CPU profiler (node:inspector), self time grouped
// by relaytrace module vs OpenTelemetry vs other packages vs Node internals.
//
//   node bench/profile.mjs --variant=<name> [--calls=N] [--top=N] [--interval=µs] [--out=file.cpuprofile]
//                          [--base=<tree>] [--node=24]
//
// Variants: the tool-call variants of `npm run bench` section 1 (none, noopSubscriber, interceptSanitizer,
// atofFile, otelFull, otelOpeninference, otelGenAi, otlpFull), their references (rawOtel,
// rawOtelFull, rawOtlpFull, atofFloor), and `loop` (agent loop with ATOF + ATIF + OTel
// openinference; --calls counts runs there), and `conversation` (the agent-loop peer pair's
// relaytrace side: 5 turns, one tool call a turn, ATOF file + OTel openinference; --exporters=
// names others, e.g. --exporters= for the same conversation untraced; --turns= its length). The
// profile covers the measured calls only, after a warm-up; --base profiles another built tree
// instead of this repository's dist/. --out also writes the raw profile (open it in Chrome
// DevTools' Performance panel).
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadRelaytrace } from "./lib/load.mjs";
import { rerunUnderRequestedNode } from "./lib/node24.mjs";
import { startOtlpReceiver } from "./lib/otlp-receiver.mjs";
import { REFERENCES, TOOL_VARIANTS } from "./lib/variants.mjs";
import { loop } from "./lib/workload.mjs";
import { table } from "./lib/format.mjs";
import { LOOP_VARIANTS, makeLoopSetup, startProvider } from "./suites/loop.mjs";
import { groupProfile } from "./lib/profile-groups.mjs";
import { CONVERSATION_TOOL } from "./suites/conversation.mjs";

const argv = process.argv.slice(2);
rerunUnderRequestedNode(fileURLToPath(import.meta.url), argv);
const arg = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const variant = arg("variant");
const known = [...Object.keys(TOOL_VARIANTS), ...Object.keys(REFERENCES), "loop", "conversation"];
if (!variant || !known.includes(variant)) {
  console.error(`usage: node bench/profile.mjs --variant=<${known.join("|")}> [--calls=N] [--top=N] [--out=file.cpuprofile]`);
  process.exit(2);
}
const isLoop = variant === "loop" || variant === "conversation";
const calls = Number(arg("calls") ?? (isLoop ? 200 : 200_000));
const top = Number(arg("top") ?? 25);
const api = await loadRelaytrace(arg("base"));

/** Sets up the variant; returns { work(n), close() }. */
async function prepare() {
  if (isLoop) {
    // "conversation": the agent-loop peer pair's relaytrace side (5 turns, one tool call and ~4 KB
    // of context a turn, ATOF file + OTel openinference).
    const conversation = variant === "conversation";
    const turns = Number(arg("turns") ?? 5);
    const provider = await startProvider(
      conversation
        ? { delayMs: 1, toolTurns: turns, toolsPerTurn: 1, tools: [CONVERSATION_TOOL.name], assistantTextBytes: 2_000 }
        : undefined,
    );
    const setup = conversation
      ? await makeLoopSetup(
          api,
          provider.url,
          arg("exporters") === undefined ? ["atof", "openinference"] : arg("exporters").split(",").filter(Boolean),
          {
            tools: [CONVERSATION_TOOL],
            maxTurns: turns + 5,
          },
        )
      : await makeLoopSetup(api, provider.url, LOOP_VARIANTS.target);
    return {
      work: async (n) => {
        for (let i = 0; i < n; i++) await setup.run();
        await setup.runtime.flush();
      },
      close: async () => (await setup.close(), await provider.close()),
    };
  }
  const otlp = TOOL_VARIANTS[variant]?.otlp || REFERENCES[variant]?.otlp;
  const receiver = otlp ? await startOtlpReceiver() : undefined;
  const ctx = { receiverUrl: receiver?.url(variant) };
  const holder = TOOL_VARIANTS[variant] ? await TOOL_VARIANTS[variant].make(api, ctx) : await REFERENCES[variant].make(ctx);
  const flush = () => holder.runtime?.flush() ?? holder.flush?.();
  return {
    work: async (n) => (await loop(n, holder.call), await flush()),
    close: async () => {
      await (holder.close?.() ?? holder.shutdown?.());
      await receiver?.close();
    },
  };
}

const subject = await prepare();
await subject.work(isLoop ? 5 : Math.min(20_000, calls));
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: Number(arg("interval") ?? 100) });
await session.post("Profiler.start");
const t0 = process.hrtime.bigint();
await subject.work(calls);
const elapsedMs = Number(process.hrtime.bigint() - t0) / 1e6;
const { profile } = await session.post("Profiler.stop");
session.disconnect();
await subject.close();
if (arg("out")) await writeFile(arg("out"), JSON.stringify(profile));

const label =
  TOOL_VARIANTS[variant]?.label ??
  REFERENCES[variant]?.label ??
  (variant === "conversation"
    ? `${arg("turns") ?? 5}-turn conversation, ${arg("exporters") === undefined ? "ATOF file + OTel openinference" : arg("exporters") || "untraced"}`
    : "agent loop, ATOF file + ATIF + OTel openinference");
const g = groupProfile(profile, { relaytraceDist: api.dist, benchDir: path.dirname(fileURLToPath(import.meta.url)) });
const pct = (us) => `${((us / g.busyUs) * 100).toFixed(1)} %`;
const ms = (us) => (us / 1000).toFixed(1);
console.log(
  `${label}: ${calls.toLocaleString("en-US")} ${isLoop ? "runs" : "calls"} in ${elapsedMs.toFixed(0)} ms on node ${process.version}; ${g.samples} samples, ${ms(g.busyUs)} ms busy (idle excluded)`,
);
console.log(`relaytrace from ${api.dist}\n`);
console.log(
  table(
    ["where (self time)", "ms", "share of busy"],
    g.groups.map((x) => [x.group, ms(x.us), pct(x.us)]),
  ),
);
console.log("");
console.log(
  table(
    ["relaytrace module", "ms", "share of busy"],
    g.relaytraceModules.slice(0, top).map((x) => [x.module, ms(x.us), pct(x.us)]),
  ),
);
console.log("");
console.log(
  table(
    ["function (self time)", "where", "module:line", "ms", "share of busy"],
    g.functions.slice(0, top).map((f) => [f.name, f.group, f.location, ms(f.us), pct(f.us)]),
  ),
);
if (arg("out")) console.log(`\nprofile written to ${arg("out")}`);
