import { createReadStream } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Writable } from "node:stream";

const NEWLINE = 0x0a;

/**
 * The ATOF files a directory given as input stands for: its `*.jsonl` regular files (not
 * subdirectories, not hidden files), in plain name order, which is write order for a rotated set
 * (see the file exporter's `rotate`). Empty when it holds none.
 */
export async function atofFilesIn(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".jsonl") && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort()
    .map((name) => join(directory, name));
}

/**
 * Writes the files one after another into `out`, as one input: a file whose last line has no line
 * end (its writer was killed mid-line) gets one, so its next file starts on a line of its own.
 * Streams, so memory stays bounded whatever the files' sizes. Resolves with the bytes written.
 */
export async function concatenateLines(files: readonly string[], out: Writable, limit: (bytes: number) => void): Promise<number> {
  let written = 0;
  const write = async (chunk: Buffer) => {
    written += chunk.length;
    limit(written);
    if (!out.write(chunk)) await new Promise((resolve) => out.once("drain", resolve));
  };
  for (const file of files) {
    let last: number | undefined;
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      if (chunk.length === 0) continue;
      last = chunk[chunk.length - 1];
      await write(chunk);
    }
    if (last !== undefined && last !== NEWLINE) await write(Buffer.from("\n"));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return written;
}
