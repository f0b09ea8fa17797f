import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import {
  META_STREAM_INCOMPLETE,
  META_TIME_PER_OUTPUT_CHUNK_MS,
  META_TIME_PER_OUTPUT_CHUNK_OMITTED,
  META_TIME_TO_FIRST_CHUNK_MS,
} from "../events/wire-names.js";
import { codecForEvent } from "../wire/registry.js";
import { assembleStream } from "../wire/stream-assembly.js";
import type { RuntimeCore } from "./runtime-core.js";

/** How a managed stream's `llm` end records the reply: an assembler of the caller's, or `"chunks"` for the raw chunk array. */
export type StreamAssembly<C> = ((chunks: readonly C[]) => Json) | "chunks";

/** What the `llm` end of a stream records: the reply, and metadata that says when it is not whole. */
export interface StreamRecord {
  response: Json;
  metadata: JsonObject;
}

/**
 * The recorder of a managed stream. Default: the dialect's codec (by the call's `data_schema`,
 * else its event name) assembles the chunks into the response a non-streaming call records, and
 * a stream that stopped early says why under `relaytrace.stream_incomplete`. A call of no known
 * dialect, or `"chunks"`, records the chunks themselves. A failing assembler costs only that (the
 * caller has every chunk): it is counted and the chunks are recorded.
 */
export function streamRecorder<C>(
  core: RuntimeCore,
  name: string,
  dataSchema: DataSchema | undefined,
  assemble: StreamAssembly<C> | undefined,
): (chunks: readonly C[]) => StreamRecord {
  const raw = (chunks: readonly C[]): StreamRecord => ({ response: chunks as unknown as Json, metadata: {} });
  if (assemble === "chunks") return raw;
  const codec = assemble === undefined ? codecForEvent({ dataSchema, name, which: "response" }) : undefined;
  if (assemble === undefined && codec === undefined) return raw;
  return (chunks) => {
    try {
      if (assemble !== undefined) return { response: assemble(chunks), metadata: {} };
      const { response, incomplete } = assembleStream(codec!, chunks);
      return { response, metadata: incomplete === undefined ? {} : { [META_STREAM_INCOMPLETE]: incomplete } };
    } catch (error) {
      core.diagnostics.recordError("llm_stream_assemble_failed", error);
      return raw(chunks);
    }
  };
}

/**
 * When a stream's chunks arrived, for its `llm` end: milliseconds from the start to the first
 * chunk (`time_to_first_chunk_ms`) and from each chunk to the next (`time_per_output_chunk_ms`,
 * one entry per chunk after the first), the two measurements of the GenAI client streaming metrics.
 */
export class ChunkTiming {
  /** At most this many gaps are kept: a stream of any length records a bounded end event. */
  static readonly MAX_GAPS = 1000;
  private firstUs: number | undefined;
  private lastUs = 0;
  private readonly gapsMs: number[] = [];
  private omitted = 0;

  constructor(private readonly startedAtUs: number) {}

  arrived(us: number): void {
    if (this.firstUs === undefined) this.firstUs = us;
    else if (this.gapsMs.length < ChunkTiming.MAX_GAPS) this.gapsMs.push(Math.max(0, us - this.lastUs) / 1000);
    else this.omitted++;
    this.lastUs = us;
  }

  /** The timing metadata; empty before the first chunk. */
  metadata(): JsonObject {
    if (this.firstUs === undefined) return {};
    const out: JsonObject = { [META_TIME_TO_FIRST_CHUNK_MS]: (this.firstUs - this.startedAtUs) / 1000 };
    if (this.gapsMs.length > 0) out[META_TIME_PER_OUTPUT_CHUNK_MS] = [...this.gapsMs];
    if (this.omitted > 0) out[META_TIME_PER_OUTPUT_CHUNK_OMITTED] = this.omitted;
    return out;
  }
}
