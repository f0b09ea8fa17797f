/**
 * Diagnostics on stderr, so a failing telemetry path is visible without code: each diagnostic
 * code is printed once, when it first happens (with its message), and how many times each
 * printed code happened in all is printed when the process exits. The level comes from
 * `RELAYTRACE_LOG` (`debug` | `info` | `warn` | `error` | `none`), else `OTEL_LOG_LEVEL`, else
 * `warn`, which prints lost telemetry (failed exports, dropped data) and nothing routine.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "none";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, none: 100 };
const OTEL_LEVELS: Record<string, LogLevel> = {
  all: "debug",
  verbose: "debug",
  debug: "debug",
  info: "info",
  warn: "warn",
  warning: "warn",
  error: "error",
  none: "none",
  off: "none",
};

// Process-wide, under a global symbol: every runtime and exporter (and duplicated package copies) share one log.
const KEY = Symbol.for("relaytrace.diagnosticLog");
interface LogState {
  counts: Map<string, { level: LogLevel; count: number }>;
  exitHooked: boolean;
}
const holder = globalThis as unknown as Record<symbol, LogState | undefined>;
const state: LogState = holder[KEY] ?? (holder[KEY] = { counts: new Map(), exitHooked: false });

/** The configured threshold; an unknown value falls back to `warn`. */
export function logLevel(env: Record<string, string | undefined> = process.env): LogLevel {
  const raw = (env["RELAYTRACE_LOG"] ?? env["OTEL_LOG_LEVEL"] ?? "").trim().toLowerCase();
  return OTEL_LEVELS[raw] ?? "warn";
}

/**
 * How severe a diagnostic is: telemetry lost (failed, dropped, not exported, timed out) is `warn`;
 * everything else `info`, including the traces tail sampling drops, which the app asked for.
 */
export function levelOfCode(code: string): LogLevel {
  if (code.startsWith("sampling.")) return "info";
  if (/(failed|dropped|not_exported|lost|unended|timeout|refused)/.test(code)) return "warn";
  return "info";
}

function write(line: string): void {
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // stderr gone: nothing left to tell
  }
}

function printTotals(): void {
  for (const [code, { level, count }] of state.counts) {
    if (count > 1 && RANK[level] >= RANK[logLevel()]) write(`relaytrace ${level}: ${code} happened ${count} times in all`);
  }
}

/** Called for every recorded diagnostic; prints the first occurrence of a code at or above the level. */
export function logDiagnostic(code: string, message: string, by: number): void {
  const seen = state.counts.get(code);
  if (seen) {
    seen.count += by;
    return;
  }
  const level = levelOfCode(code);
  state.counts.set(code, { level, count: by });
  if (RANK[level] < RANK[logLevel()]) return;
  write(`relaytrace ${level}: ${code}: ${message} (later occurrences are counted; see diagnostics())`);
  if (!state.exitHooked) {
    state.exitHooked = true;
    process.once("exit", printTotals);
  }
}
