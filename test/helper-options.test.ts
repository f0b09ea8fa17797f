// The helpers' options are checked like the runtime's: startReplayServer, startScriptedProvider
// and the ATOF readers refuse an unknown key or a value of the wrong type with a TypeError naming
// the option, what it must be and what it got, before a server listens or a file is read.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAtof, readAtofFile, streamAtofFile } from "relaytrace";
import { startReplayServer, startScriptedProvider } from "relaytrace/testing";

/** Options a JavaScript caller (or a cast) can pass; the types forbid them. */
const bad = <T>(options: Record<string, unknown>) => options as unknown as T;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-helper-options-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("helper options", () => {
  it("startReplayServer: one recording, a boolean strict, a port", async () => {
    const file = join(dir, "run.jsonl");
    await expect(startReplayServer(bad({ file, strict: "yes" }))).rejects.toThrow(
      new TypeError('startReplayServer: strict must be a boolean (got "yes")'),
    );
    await expect(startReplayServer(bad({ fil: file }))).rejects.toThrow('startReplayServer: unknown option "fil" (did you mean "file"?)');
    await expect(startReplayServer({ file, port: 70_000 })).rejects.toThrow(
      "startReplayServer: port must be an integer from 0 to 65535 (got 70000)",
    );
    await expect(startReplayServer({ events: [], file })).rejects.toThrow(
      "startReplayServer: options must have either file (an ATOF file) or events (got both)",
    );
    await expect(startReplayServer({})).rejects.toThrow(
      "startReplayServer: options must have either file (an ATOF file) or events (got neither)",
    );
  });

  it("startScriptedProvider: its turns, a known wire style", async () => {
    await expect(startScriptedProvider(bad({ turn: [{ text: "hi" }] }))).rejects.toThrow(
      new TypeError('startScriptedProvider: unknown option "turn" (did you mean "turns"?)'),
    );
    await expect(startScriptedProvider(bad({}))).rejects.toThrow("startScriptedProvider: turns must be a list of turns or a function");
    await expect(startScriptedProvider(bad({ turns: [], style: "claude" }))).rejects.toThrow(
      'startScriptedProvider: style must be one of "anthropic", "gemini", "openai", "openai-responses" (got "claude")',
    );
    await expect(startScriptedProvider(bad({ turns: [], delayMs: "10" }))).rejects.toThrow(
      'startScriptedProvider: delayMs must be a non-negative finite number (got "10")',
    );
  });

  it("parseAtof, readAtofFile and streamAtofFile", async () => {
    expect(() => parseAtof("", bad({ maxLineBytes: "1MB" }))).toThrow(
      new TypeError('parseAtof: maxLineBytes must be a positive number (got "1MB")'),
    );
    expect(() => parseAtof("", bad({ checkPairng: false }))).toThrow(
      'parseAtof: unknown option "checkPairng" (did you mean "checkPairing"?)',
    );
    const file = join(dir, "empty.jsonl");
    await writeFile(file, "");
    await expect(readAtofFile(file, bad({ skipBadLine: true }))).rejects.toThrow(
      new TypeError('readAtofFile: unknown option "skipBadLine" (did you mean "skipBadLines"?)'),
    );
    await expect(streamAtofFile(file, bad({ progressEvery: 0 })).next()).rejects.toThrow(
      "streamAtofFile: progressEvery must be a positive integer (got 0)",
    );
    expect(parseAtof("", { checkPairing: false, maxLineBytes: 10 })).toEqual({ events: [], warnings: [] });
  });
});
