import { join } from "node:path";
import { freePort } from "./ports.js";
import { httpOk, startProgram, waitUntil, type RunningProgram } from "./program.js";
import { scratchDir } from "./scenarios.js";
import { toolPath } from "./tools.js";

/** A real Arize Phoenix server (`phoenix serve` from its virtual environment), HTTP on loopback. */
export interface Phoenix {
  /** Base URL: OTLP/HTTP at `/v1/traces`, REST API under `/v1/`. */
  readonly url: string;
  readonly program: RunningProgram;
  stop(): Promise<void>;
}

export async function startPhoenix(): Promise<Phoenix> {
  const python = toolPath("install-python.sh", "phoenix");
  const bin = join(python, "..", "phoenix");
  const port = await freePort();
  const dir = await scratchDir("phoenix");
  const program = startProgram("phoenix", bin, ["serve"], {
    env: {
      PHOENIX_HOST: "127.0.0.1",
      PHOENIX_PORT: String(port),
      // Phoenix also opens an OTLP/gRPC port (on every interface; it has no setting for that): a free one.
      PHOENIX_GRPC_PORT: String(await freePort()),
      PHOENIX_WORKING_DIR: dir,
      PHOENIX_TELEMETRY_ENABLED: "false",
      PHOENIX_ALLOW_EXTERNAL_RESOURCES: "false",
      PHOENIX_LOGGING_LEVEL: "warning",
      PHOENIX_DB_LOGGING_LEVEL: "warning",
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    // Phoenix migrates its SQLite database on first start: slow on a busy machine.
    await waitUntil(program, "its health check answers", () => httpOk(`${url}/healthz`), 240_000);
  } catch (error) {
    await program.stop();
    throw error;
  }
  return { url, program, stop: () => program.stop(10_000) };
}

/** A span as Phoenix's REST API (`GET /v1/projects/{project}/spans`) returns it. */
export interface PhoenixSpan {
  name: string;
  context: { trace_id: string; span_id: string };
  parent_id: string | null;
  span_kind: string;
  status_code: string;
  status_message: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
}

export async function phoenixSpans(phoenix: Phoenix, project = "default"): Promise<PhoenixSpan[]> {
  const spans: PhoenixSpan[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const response = await fetch(`${phoenix.url}/v1/projects/${project}/spans?${query}`);
    if (response.status === 404) return [];
    const body = (await response.json()) as { data: PhoenixSpan[]; next_cursor: string | null };
    spans.push(...body.data);
    cursor = body.next_cursor;
  } while (cursor);
  return spans;
}
