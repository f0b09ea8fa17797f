#!/usr/bin/env node
import { once } from "node:events";
import { resolve } from "node:path";
import { escapeControlCharactersInLines } from "../../exporters/testing/control-characters.js";
import { unknownCommand, UsageError } from "./args.js";
import { MAIN_HELP } from "./help.js";
import { InputError } from "./input.js";
import { releaseInputCopies } from "./input-spool.js";
import { endQuietlyWhenOutputCloses } from "./standard-streams.js";
import type { Io } from "./io.js";
import { packageVersion } from "../events/package-version.js";
import { installedPriceTableVersion, PRICE_TABLE_PACKAGE } from "../wire/price-table-loader.js";

type Command = (io: Io, argv: string[]) => Promise<number>;

/**
 * Each command's module, loaded when that command runs: `relaytrace diff` does not load the OTel SDK,
 * ajv, the demo agent or the viewer. A command handles its own `--help`.
 */
const COMMAND_MODULES: Record<string, () => Promise<Command>> = {
  demo: async () => (await import("./demo-command.js")).demoCommand,
  convert: async () => (await import("./commands.js")).convertCommand,
  validate: async () => (await import("./commands.js")).validateCommand,
  tree: async () => (await import("./commands.js")).treeCommand,
  view: async () => (await import("./view-command.js")).viewCommand,
  send: async () => (await import("./send-command.js")).sendCommand,
  replay: async () => (await import("./replay-command.js")).replayCommand,
  diff: async () => (await import("./diff-command.js")).diffCommand,
  serve: async () => (await import("./dashboard/serve-command.js")).serveCommand,
};

const COMMANDS = Object.keys(COMMAND_MODULES);

function consoleIo(): Io {
  const tty = process.stderr.isTTY === true;
  // Progress only for work that runs long enough to wonder about.
  let last = Date.now();
  let shown = false;
  const clear = () => {
    if (shown && tty) process.stderr.write("\n");
    shown = false;
  };
  return {
    // Everything printed may carry names from a foreign file: control characters are escaped.
    out: (line) => {
      clear();
      process.stdout.write(`${escapeControlCharactersInLines(line)}\n`);
    },
    drained: () => (process.stdout.writableNeedDrain ? once(process.stdout, "drain").then(() => undefined) : Promise.resolve()),
    err: (line) => {
      clear();
      process.stderr.write(`${escapeControlCharactersInLines(line)}\n`);
    },
    progress: (line) => {
      const now = Date.now();
      if (now - last < (tty ? 500 : 2000)) return;
      last = now;
      if (tty) {
        process.stderr.write(`\r${escapeControlCharactersInLines(line)}`);
        shown = true;
      } else {
        process.stderr.write(`${escapeControlCharactersInLines(line)}\n`);
      }
    },
  };
}

export async function main(argv: string[], io: Io = consoleIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      io.out(MAIN_HELP);
      return 0;
    }
    if (command === "--version" || command === "-V" || command === "version") {
      io.out(`relaytrace ${packageVersion()}`);
      // The price table ages with its release: which one prices this install's calls.
      io.out(`prices: ${PRICE_TABLE_PACKAGE} ${installedPriceTableVersion() ?? "(not found)"}`);
      return 0;
    }
    const load = Object.hasOwn(COMMAND_MODULES, command) ? COMMAND_MODULES[command] : undefined;
    if (load === undefined) {
      if (command.startsWith("-")) throw new UsageError(`${unknownCommand(command, COMMANDS)} (an option goes after its command)`);
      throw new UsageError(unknownCommand(command, COMMANDS));
    }
    const run = await load();
    return await run(io, rest);
  } catch (error) {
    if (error instanceof UsageError || error instanceof InputError) {
      io.err(`relaytrace: ${error.message}`);
      return 2;
    }
    io.err(`relaytrace: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    releaseInputCopies();
  }
}

// Run only as the program, not when imported by tests.
const invoked = process.argv[1] ? resolve(process.argv[1]) : "";
if (invoked.endsWith("/cli/main.js") || invoked.endsWith("/bin/relaytrace") || invoked.endsWith("/.bin/relaytrace")) {
  endQuietlyWhenOutputCloses();
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`relaytrace: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
