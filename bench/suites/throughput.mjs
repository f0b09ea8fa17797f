// §4 Throughput and memory: many tool calls with the ATOF file exporter, and with an OTel exporter
// whose collector is stalled; each case in a child with --expose-gc and a capped old space.
import { runChild } from "../lib/child.mjs";
import { table, verdict } from "../lib/format.mjs";

export async function runThroughput(cfg) {
  const cases = [];
  for (const mode of ["atof", "otelStalled"]) {
    try {
      const r = await runChild("throughput.mjs", [JSON.stringify({ mode, calls: cfg.calls })], ["--expose-gc", "--max-old-space-size=256"]);
      // Bounded: the second half of the run may not grow RSS by more than a fixed slack.
      r.growthSecondHalfMiB = r.rssAtEndMiB - r.rssAtHalfMiB;
      r.bounded = r.growthSecondHalfMiB < 32;
      r.crashed = false;
      cases.push(r);
    } catch (error) {
      cases.push({ mode, calls: cfg.calls, crashed: true, error: String(error) });
    }
  }
  return { config: cfg, cases };
}

const LABEL = { atof: "ATOF file exporter", otelStalled: "OTel full, stalled collector" };

export function formatThroughput(r) {
  const lines = [];
  if (r.config.quick) lines.push(`(quick mode: ${r.config.calls.toLocaleString("en-US")} calls instead of 1,000,000)`);
  lines.push(
    table(
      ["case", "calls", "events/s", "RSS start MiB", "peak RSS MiB", "RSS growth 2nd half MiB", "drops counted", "crashed", "RSS bounded"],
      r.cases.map((c) =>
        c.crashed
          ? [LABEL[c.mode], c.calls, "—", "—", "—", "—", "—", "YES", "—"]
          : [
              LABEL[c.mode],
              c.calls.toLocaleString("en-US"),
              Math.round(c.eventsPerSecond).toLocaleString("en-US"),
              c.rssStartMiB.toFixed(1),
              c.peakRssMiB.toFixed(1),
              c.growthSecondHalfMiB.toFixed(1),
              c.dropped.toLocaleString("en-US"),
              "no",
              verdict(c.bounded),
            ],
      ),
    ),
  );
  for (const c of r.cases)
    if (!c.crashed && c.diagnostics.length)
      lines.push(`${LABEL[c.mode]} diagnostics: ${c.diagnostics.map((d) => `${d.code}×${d.count}`).join(", ")}`);
  return lines.join("\n");
}
