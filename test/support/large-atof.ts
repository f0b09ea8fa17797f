import { createWriteStream } from "node:fs";
import { scopeLine } from "./atof-files.js";

export interface LargeAtofShape {
  runs: number;
  /** Child scopes per run, each carrying `payloadBytes` of data on start and on end. */
  children: number;
  payloadBytes: number;
  /** First timestamp (µs); each event is one µs after the previous one of its run. */
  startUs?: number;
  /** Write the runs last first: a file whose events are not in time order (as another producer may write). */
  runsReversed?: boolean;
  /** Prefix of every uuid and name, so several files do not collide. */
  prefix?: string;
  /** The runs' category: `agent` (one trajectory per run) or `function`. */
  rootCategory?: string;
  /** µs between the starts of two runs (default: just after the previous run ends). */
  runSpacingUs?: number;
}

/** Events per run: root start and end plus a start and an end per child. */
export function eventsPerRun(shape: LargeAtofShape): number {
  return 2 + 2 * shape.children;
}

/**
 * Writes a large ATOF file quickly: lines go through a write stream with backpressure, payloads
 * are one repeated string, so neither the test nor the file's size costs memory.
 */
export async function writeLargeAtof(path: string, shape: LargeAtofShape): Promise<number> {
  const out = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  const payload = "x".repeat(shape.payloadBytes);
  const prefix = shape.prefix ?? "";
  const base = shape.startUs ?? 1_772_366_400_000_000;
  const spacing = shape.runSpacingUs ?? eventsPerRun(shape);
  let bytes = 0;
  const write = async (line: string) => {
    bytes += line.length + 1;
    if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
  };
  for (let i = 0; i < shape.runs; i++) {
    const r = shape.runsReversed ? shape.runs - 1 - i : i;
    let us = base + r * spacing;
    const root = `${prefix}r${r}`;
    const rootFields = { name: `${prefix}run-${r}`, category: shape.rootCategory ?? "agent", data: { input: `${prefix}question ${r}` } };
    await write(scopeLine("start", root, null, us++, rootFields));
    for (let c = 0; c < shape.children; c++) {
      const child = `${root}c${c}`;
      await write(scopeLine("start", child, root, us++, { name: "step", data: { args: payload } }));
      await write(scopeLine("end", child, root, us++, { name: "step", data: { result: payload } }));
    }
    await write(scopeLine("end", root, null, us, { ...rootFields, data: { output: `${prefix}answer ${r}` } }));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return bytes;
}
