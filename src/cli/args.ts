/** A command-line mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface FlagSpec {
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
      throw new UsageError(`unknown option ${arg}`);
    }
  }
  return out;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string, fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
}
