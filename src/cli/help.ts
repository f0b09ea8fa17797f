// The help texts of main.ts and of the commands it runs from commands.ts and demo-command.ts: small,
// so `relaytrace --help` loads no command.

export const MAIN_HELP = `relaytrace — tracing for LLM agents: ATOF event logs, ATIF trajectories, OpenTelemetry spans

Usage: relaytrace <command> [options]

Commands:
  demo       run a small traced agent on an embedded scripted model (no API key, no network)
  convert    convert an ATOF file to ATIF, OTLP JSON or a span tree
  validate   check an ATIF or ATOF file and list every problem
  tree       print the span tree of an ATOF file or the step tree of an ATIF file
  view       write a self-contained HTML trace viewer for ATOF, ATIF or OTLP/JSON files
  send       replay ATOF files to an OTLP collector
  replay     serve the model calls recorded in an ATOF file as a local model server
  diff       compare two recorded runs step by step (tool calls, results, output, status, usage)
  serve      a local dashboard over a directory of ATOF files: runs, sessions, traces, comparisons

A FILE may be - (standard input), a pipe, or a directory: its *.jsonl files, read in name order
as one log (a rotated set from the file exporter's rotate option reads oldest first).
Run 'relaytrace <command> --help' for a command's options; 'relaytrace --version' for the version.`;

export const DEMO_HELP = `Usage: relaytrace demo [--out DIR] [--otlp URL] [--projection full|openinference|gen_ai] [--style STYLE] [--live]

Runs a weather agent with a local tool (annotated result, pending marks from an intercept),
a relay tool the host answers, and an email-redaction sanitizer, against a scripted
OpenAI-compatible model started inside this process on 127.0.0.1.

Options:
  --out DIR          where the ATOF and ATIF files go (default ./relaytrace-out)
  --otlp URL         also send spans over OTLP/HTTP, e.g. http://localhost:4318/v1/traces
  --projection P     span flavour: full (default), openinference or gen_ai
  --style STYLE      the wire the model speaks: openai (default), openai-responses, anthropic or gemini
  --live             use a real provider: OPENAI_API_KEY or ANTHROPIC_API_KEY from the environment
  --base-url URL     with --live: the provider's base URL
  --model NAME       with --live: the model (default gpt-4.1-mini / claude-sonnet-4-5)`;

export const CONVERT_HELP =
  "Usage: relaytrace convert FILE.jsonl... --to atif|otlp-json|tree [-o OUT] [--projection P] " +
  `[--agent-name NAME] [--service-name NAME] [--lenient]

Reads ATOF files (relaytrace's or another producer's; several are merged by time, unsorted ones
sorted through a temporary directory) and writes the chosen form to OUT or stdout, in bounded memory.
  --to atif        one ATIF v1.7 trajectory per run: to stdout or -o FILE for one run, one file per run with -o DIR
                   (agent name from the agent scope unless --agent-name)
  --to otlp-json   an OTLP/JSON ExportTraceServiceRequest (projection: --projection, default full)
  --to tree        the span tree
  --service-name N the OTLP resource's service.name (default: OTEL_SERVICE_NAME, else unknown_service)
  --lenient        skip bad lines with a warning instead of stopping (a torn last line is always
                   skipped, with a warning)`;

export const VALIDATE_HELP = `Usage: relaytrace validate FILE... [--lenient]

Checks an ATIF document (JSON Schema for ATIF v1.7 plus its cross-field rules) or an ATOF event
log (every line, pairing of starts and ends). Prints each problem with its JSON path or line
number. A torn last line (a writer stopped mid-line) is a warning, not a problem; --lenient makes
bad lines warnings too. Exit status: 0 valid, 1 invalid, 2 unreadable input or bad arguments.`;

export const TREE_HELP = `Usage: relaytrace tree FILE... [--projection P] [--lenient]

Prints the span tree (names, kinds, status, durations) of an ATOF file, each root's tree as soon
as it is complete, or the step tree of an ATIF file. --lenient skips bad lines with a warning
(a torn last line is always skipped, with a warning).`;
