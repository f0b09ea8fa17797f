import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import { META_STREAM_INCOMPLETE } from "../events/wire-names.js";
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
