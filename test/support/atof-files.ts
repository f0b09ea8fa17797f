import { execFileSync, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import type { MarkEvent, ScopeEvent } from "../../src/events/types.js";

/** A scope event as a producer would write it; `us` is microseconds since the epoch. */
export function scopeLine(
  phase: "start" | "end",
  uuid: string,
  parent: string | null,
  us: number,
  fields: Partial<ScopeEvent> = {},
): string {
  const event: ScopeEvent = {
    kind: "scope",
    scope_category: phase,
    atof_version: "0.1",
    uuid,
    parent_uuid: parent,
    timestamp: us,
    name: fields.name ?? uuid,
    attributes: [],
    category: fields.category ?? "function",
    category_profile: null,
    data: fields.data ?? null,
    data_schema: null,
    metadata: null,
  };
  return JSON.stringify(event);
}

/** Writes lines to a real file through a stream with backpressure, so a huge file is never one string. */
export async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines) {
    if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** `depth` scopes each inside the previous one: all starts, then all ends (innermost first). */
export function* nestedScopes(depth: number, fields: (i: number) => Partial<ScopeEvent> = () => ({})): Generator<string> {
  const base = 1_772_366_400_000_000;
  for (let i = 0; i < depth; i++) yield scopeLine("start", `s${i}`, i === 0 ? null : `s${i - 1}`, base + i, fields(i));
  for (let i = depth - 1; i >= 0; i--) yield scopeLine("end", `s${i}`, i === 0 ? null : `s${i - 1}`, base + 2 * depth - i, fields(i));
}

/** A root mark event (what the exporter tests feed by hand). */
export function markEvent(uuid: string, data: MarkEvent["data"] = null): MarkEvent {
  return {
    kind: "mark",
    atof_version: "0.1",
    uuid,
    parent_uuid: null,
    timestamp: 1772366400000000,
    name: "note",
    category: null,
    category_profile: null,
    data,
    data_schema: null,
    metadata: null,
  };
}

/**
 * A named pipe at `dir/name` fed once with the bytes of `source` by a real writer process (`cp`):
 * it can be read exactly once, as a shell pipe can.
 */
export function namedPipeFrom(dir: string, name: string, source: string): string {
  const fifo = join(dir, name);
  execFileSync("mkfifo", [fifo]);
  spawn("cp", [source, fifo], { stdio: "ignore" }).unref();
  return fifo;
}
