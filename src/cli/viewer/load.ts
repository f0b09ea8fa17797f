import { open } from "node:fs/promises";
import { basename } from "node:path";
import { isJsonObject } from "../../events/json.js";
import type { AtifTrajectory } from "../../../exporters/atif/types.js";
import { forEachAtofEvent, type AtofFileReadOptions } from "../atof-file-reader.js";
import { detectKind, InputError, readJsonDocument } from "../input.js";
import { readablePath } from "../input-spool.js";
import { AtofSpanCollector } from "./from-atof.js";
import { spansFromOtlp } from "./from-otlp.js";
import { layoutSpans, totalsOf } from "./layout.js";
import type { ViewDoc, ViewSpan } from "./model.js";

export type ViewInputKind = "atof" | "atif" | "otlp-json";

/** ATIF and OTLP/JSON are single JSON documents; OTLP's names its `resourceSpans` near the top. */
export async function detectViewInput(path: string): Promise<ViewInputKind> {
  const kind = await detectKind(path);
  if (kind === "atof") return "atof";
  const handle = await open(await readablePath(path), "r");
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, bytesRead).toString("utf8");
    return /"resourceSpans"\s*:/.test(head) && !/"schema_version"\s*:/.test(head) ? "otlp-json" : "atif";
  } finally {
    await handle.close();
  }
}

export interface LoadOptions extends AtofFileReadOptions {
  title?: string;
  /** Per-file byte progress, for ATOF files (the JSON documents are read whole). */
  progressFor?: (file: string) => AtofFileReadOptions["onBytes"];
}

function isTrajectory(value: unknown): value is AtifTrajectory {
  return isJsonObject(value) && Array.isArray(value["steps"]) && isJsonObject(value["agent"]);
}

/** Reads every input (ATOF, ATIF, OTLP/JSON, in any mix) into the one document the page shows. */
export async function loadViewDoc(files: readonly string[], options: LoadOptions = {}): Promise<ViewDoc> {
  const collector = new AtofSpanCollector();
  const otlpSpans: ViewSpan[] = [];
  const trajectories: AtifTrajectory[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const kind = await detectViewInput(file);
    const name = basename(file);
    if (kind === "atof") {
      const onBytes = options.progressFor?.(file);
      await forEachAtofEvent(file, (event) => collector.add(event, name), {
        ...(options.lenient ? { lenient: true } : {}),
        ...(onBytes ? { onBytes } : {}),
        onWarning: (message) => {
          notes.push(message);
          options.onWarning?.(message);
        },
      });
    } else {
      const doc = await readJsonDocument(file);
      if (kind === "otlp-json") {
        otlpSpans.push(...spansFromOtlp(doc, name));
      } else {
        const docs = Array.isArray(doc) ? doc : [doc];
        const bad = docs.findIndex((d) => !isTrajectory(d));
        if (bad >= 0)
          throw new InputError(
            `${file}: not an ATIF trajectory, ATOF event log or OTLP/JSON request (run 'relaytrace validate ${file}' for details)`,
          );
        trajectories.push(...(docs as AtifTrajectory[]));
      }
    }
  }
  notes.push(...collector.notes());
  const { spans, traces } = layoutSpans([...collector.spans(), ...otlpSpans]);
  return {
    title: options.title ?? (files.length === 1 ? basename(files[0]!) : `${files.length} files`),
    sources: files.map((f) => basename(f)),
    spans,
    traces,
    trajectories,
    totals: totalsOf(spans, traces, trajectories),
    notes,
  };
}
