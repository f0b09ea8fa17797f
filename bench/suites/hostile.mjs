// §6 Hostile input: work that an attacker controls the size of must grow linearly. Each row
// doubles the input; a ratio near 2× per doubling is linear, near 4× would be quadratic.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ratio, table, verdict } from "../lib/format.mjs";

const dist = new URL("../../dist/", import.meta.url);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(rounds, fn) {
  const samples = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(samples);
}

function nestedAgents(depth) {
  const events = [];
  const base = 1_772_366_400_000_000;
  const scope = (phase, i, us) => ({
    kind: "scope",
    scope_category: phase,
    atof_version: "0.1",
    uuid: `s${i}`,
    parent_uuid: i === 0 ? null : `s${i - 1}`,
    timestamp: us,
    name: `agent-${i}`,
    attributes: [],
    category: "agent",
    category_profile: null,
    data: { prompt: `task ${i}` },
    data_schema: null,
    metadata: null,
  });
  for (let i = 0; i < depth; i++) events.push(scope("start", i, base + i));
  for (let i = depth - 1; i >= 0; i--) events.push(scope("end", i, base + 2 * depth - i));
  return events;
}

export async function runHostile(cfg) {
  const { redactPII, streamAtofFile } = await import(new URL("src/index.js", dist).href);
  const { atofToAtif } = await import(new URL("exporters/atif/project.js", dist).href);
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-bench-hostile-"));
  const cases = [];
  try {
    const redactor = redactPII();
    const keys = {};
    for (const n of cfg.keys) {
      const obj = {};
      for (let i = 0; i < n; i++) obj[`user${i}@example.com`] = i;
      keys[n] = await timed(cfg.rounds, () => redactor.redactValue(obj));
    }
    cases.push({ name: "redactPII, object keyed by N e-mail addresses", sizes: cfg.keys, ms: keys });

    const depth = {};
    for (const n of cfg.depths) {
      const events = nestedAgents(n);
      depth[n] = await timed(cfg.rounds, () => atofToAtif(events, { agent: { name: "a", version: "1" } }));
    }
    cases.push({ name: "atofToAtif, N nested agent scopes", sizes: cfg.depths, ms: depth });

    const line = {};
    for (const mb of cfg.lineMiB) {
      const path = join(dir, `line-${mb}.jsonl`);
      await writeFile(path, `{"kind":"mark","data":"${"a".repeat(mb * 1024 * 1024)}"`);
      line[mb] = await timed(cfg.rounds, async () => {
        try {
          for await (const event of streamAtofFile(path, { maxLineBytes: 1024 * 1024 })) void event;
        } catch {
          // the expected AtofParseError: the point is how fast it comes
        }
      });
    }
    cases.push({ name: "streamAtofFile, N MiB line past a 1 MiB cap", sizes: cfg.lineMiB, ms: line });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  for (const c of cases) {
    const [a, b, d] = c.sizes;
    c.perDoubling = [c.ms[b] / c.ms[a], c.ms[d] / c.ms[b]];
    c.linear = Math.max(...c.perDoubling) < 3;
  }
  return { config: cfg, cases };
}

export function formatHostile(r) {
  return table(
    ["work", "sizes", "ms at each size", "×, first doubling", "×, second doubling", "linear"],
    r.cases.map((c) => [
      c.name,
      c.sizes.join(" / "),
      c.sizes.map((s) => c.ms[s].toFixed(1)).join(" / "),
      ratio(c.perDoubling[0]),
      ratio(c.perDoubling[1]),
      verdict(c.linear),
    ]),
  );
}
