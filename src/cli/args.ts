import type { ProjectionName } from "../../exporters/otel/projection.js";
import { closestKey } from "../events/option-keys.js";

/** A command-line mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface FlagSpec {
  /** The command these flags belong to, named in the unknown-option message. */
  command?: string;
  /** Flags that take a value (`--out DIR` or `--out=DIR`). */
  values?: readonly string[];
  /** Flags that take no value. */
  switches?: readonly string[];
  /** Short aliases, e.g. `{ o: "out" }`. */
  aliases?: Readonly<Record<string, string>>;
}

export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string>;
  switches: Set<string>;
}

/** A small strict parser: unknown flags and missing values are usage errors, never ignored. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const values = new Set(spec.values ?? []);
  const switches = new Set([...(spec.switches ?? []), "help"]);
  const out: ParsedArgs = { positionals: [], values: new Map(), switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out.positionals.push(arg);
      continue;
    }
    let name = arg.replace(/^--?/, "");
    let inline: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    if (!arg.startsWith("--")) name = spec.aliases?.[name] ?? (name === "h" ? "help" : name);
    if (switches.has(name)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      out.switches.add(name);
    } else if (values.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith("--"))) throw new UsageError(`--${name} needs a value`);
      out.values.set(name, value);
    } else {
      throw new UsageError(unknownOption(arg, name, [...values, ...switches], spec.command));
    }
  }
  return out;
}

/** One phrasing for every unknown option and command: what was wrong, then the likely meant one or the list. */
export function unknownOption(arg: string, name: string, known: readonly string[], command?: string): string {
  const guess = closestKey(name, known);
  const where = command ? ` for 'relaytrace ${command}'` : "";
  const hint = guess !== undefined ? `did you mean --${guess}?` : `known options: ${known.map((k) => `--${k}`).join(", ")}`;
  return `unknown option ${arg.split("=")[0]}${where}; ${hint}`;
}

/** The unknown-command message, phrased like an unknown option. */
export function unknownCommand(command: string, known: readonly string[]): string {
  const guess = closestKey(command, known);
  return `unknown command "${command}"; ${guess !== undefined ? `did you mean ${guess}?` : `commands: ${known.join(", ")}`}`;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string, fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
}

/** The span projections `--projection` accepts. */
export const PROJECTIONS: readonly ProjectionName[] = ["full", "openinference", "gen_ai"];

/** The FILE arguments, or a usage error when there are none. */
export function requireFiles(positionals: string[], command: string): string[] {
  if (positionals.length === 0) throw new UsageError(`${command} needs a FILE (see 'relaytrace ${command} --help')`);
  return positionals;
}
