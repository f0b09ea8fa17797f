import { isJsonObject, type Json } from "../../../events/json.js";
import { jsonTextChunks } from "../../../events/json-text.js";
import { otelIdHex } from "../../../events/otel-ids.js";
import type { AtofEvent, ScopeEvent } from "../../../events/types.js";
import {
  META_RESUME_OF,
  META_RETRY_OF,
  META_SESSION_ID,
  META_STATUS_CODE,
  META_STATUS_DESCRIPTION,
  META_TAGS,
  META_USER_ID,
  PENDING_REQUEST_SCHEMA,
  SCHEMA_EVALUATION,
  TOOL_ANSWER_MARK,
} from "../../../events/wire-names.js";
import { recordedCost } from "../../../wire/pricing.js";
import { modelOf, usageOf } from "../../viewer/conversation.js";
import type { RunEvaluation, RunStatus, RunSummary } from "../model.js";

/** Characters of a root's input and output kept for the runs list and the session view. */
export const PREVIEW_CHARS = 300;

/** Keys whose string value says what an input or an output is (checked in this order). */
const INPUT_KEYS = ["prompt", "input", "question", "query", "message", "text", "content"];
const OUTPUT_KEYS = ["text", "output", "answer", "result", "response", "content", "message"];

/** A value as a short text: a string as it is, the telling field of an object, else the start of its JSON. */
export function previewOf(value: Json, keys: readonly string[]): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value.slice(0, PREVIEW_CHARS);
  if (isJsonObject(value)) {
    for (const key of keys) {
      const v = value[key];
      if (typeof v === "string" && v !== "") return v.slice(0, PREVIEW_CHARS);
    }
  }
  let text = "";
  for (const chunk of jsonTextChunks(value)) {
    text += chunk;
    if (text.length >= PREVIEW_CHARS) break;
  }
  return text.slice(0, PREVIEW_CHARS);
}

function metaValue(metadata: Json, key: string): Json | undefined {
  return isJsonObject(metadata) ? metadata[key] : undefined;
}

function metaString(metadata: Json, key: string): string | undefined {
  const v = metaValue(metadata, key);
  return typeof v === "string" && v !== "" ? v : undefined;
}

function profileString(event: AtofEvent, key: string): string | undefined {
  const v = event.category_profile?.[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * One run (a trace) as its lines are read: where its lines are in the files (file, offset and
 * length per line, to read them back on demand) and the running sums of its summary. Whole
 * events are never kept. A record whose root turns out to have a parent read later is merged
 * into that parent's record (`mergedInto`), which then answers for both.
 */
export class RunRecord {
  /** Lines as flat triples: file index, byte offset, byte length. */
  refs: number[] = [];
  mergedInto: RunRecord | undefined;
  version = 0;
  private rootName = "";
  private rootKind = "unknown";
  private rootStartUs: number | undefined;
  private rootEndUs: number | undefined;
  private rootEnded = false;
  private rootError = false;
  private rootPending = false;
  private firstUs = Infinity;
  private sessionId: string | undefined;
  private userId: string | undefined;
  private tags: string[] = [];
  private spans = 0;
  private llmCalls = 0;
  private toolCalls = 0;
  private errors = 0;
  private tokens = 0;
  private costUsd: number | undefined;
  private readonly models = new Set<string>();
  private evaluations: RunEvaluation[] = [];
  private input: string | undefined;
  private output: string | undefined;
  /** Tool calls that suspended and have no answer or retry recorded yet. */
  private pending = new Set<string>();
  private resumed = false;
  readonly files = new Set<number>();

  constructor(public rootUuid: string) {}

  /** The record that answers for this one (itself unless merged). */
  resolve(): RunRecord {
    const root = this.mergedInto ? this.mergedInto.resolve() : this;
    // Path compression: later lookups of this record take one step.
    if (this.mergedInto) this.mergedInto = root;
    return root;
  }

  get id(): string {
    return otelIdHex(this.rootUuid);
  }

  addRef(file: number, offset: number, length: number): void {
    this.refs.push(file, offset, length);
    this.files.add(file);
  }

  /** Adds an event of this run to the sums; `us` is its time. */
  add(event: AtofEvent, us: number): void {
    if (us < this.firstUs) this.firstUs = us;
    this.takeContext(event.metadata);
    if (event.kind === "mark") {
      this.addMark(event);
      return;
    }
    const isRoot = event.uuid === this.rootUuid;
    if (event.scope_category === "start") this.addStart(event, us, isRoot);
    else this.addEnd(event, us, isRoot);
  }

  private takeContext(metadata: Json): void {
    this.sessionId ??= metaString(metadata, META_SESSION_ID);
    this.userId ??= metaString(metadata, META_USER_ID);
    const tags = metaValue(metadata, META_TAGS);
    if (Array.isArray(tags)) for (const t of tags) if (typeof t === "string" && t !== "" && !this.tags.includes(t)) this.tags.push(t);
  }

  private addMark(event: AtofEvent): void {
    const schema = event.data_schema?.name;
    if (schema === SCHEMA_EVALUATION) {
      const data = event.data;
      if (isJsonObject(data) && typeof data["name"] === "string" && data["name"] !== "") {
        const e: RunEvaluation = { name: data["name"] };
        if (typeof data["score"] === "number" && Number.isFinite(data["score"])) e.score = data["score"];
        if (typeof data["label"] === "string" && data["label"] !== "") e.label = data["label"];
        this.evaluations.push(e);
      }
    } else if (schema === PENDING_REQUEST_SCHEMA.name && event.parent_uuid !== null) {
      this.pending.add(event.parent_uuid);
    } else if (event.name === TOOL_ANSWER_MARK && event.parent_uuid !== null) {
      this.pending.delete(event.parent_uuid);
    }
  }

  private addStart(event: ScopeEvent, us: number, isRoot: boolean): void {
    this.spans++;
    if (event.category === "llm") this.llmCalls++;
    if (event.category === "tool") this.toolCalls++;
    const retryOf = metaString(event.metadata, META_RETRY_OF);
    if (retryOf !== undefined) this.pending.delete(retryOf);
    if (metaString(event.metadata, META_RESUME_OF) !== undefined) {
      // A durable resume continues the run: the suspensions before it are answered.
      this.pending.clear();
      this.resumed = true;
    }
    if (event.category === "llm") {
      const model = profileString(event, "model_name");
      if (model !== undefined) this.models.add(model);
    }
    if (isRoot) {
      this.rootName = event.name;
      this.rootKind = (event.category ?? "unknown").toLowerCase();
      this.rootStartUs = us;
      this.input = previewOf(event.data, INPUT_KEYS);
    }
  }

  private addEnd(event: ScopeEvent, us: number, isRoot: boolean): void {
    const error = metaString(event.metadata, META_STATUS_CODE) === "ERROR";
    if (error) this.errors++;
    if (event.category === "llm") this.addModelEnd(event);
    if (isRoot) {
      if (this.rootStartUs === undefined) {
        this.rootName = event.name;
        this.rootKind = (event.category ?? "unknown").toLowerCase();
      }
      this.rootEnded = true;
      this.rootEndUs = us;
      this.rootError = error;
      this.rootPending = isJsonObject(event.data) && event.data["status"] === "pending";
      // A run that failed says why where its output would be.
      this.output = previewOf(event.data, OUTPUT_KEYS) ?? (error ? metaString(event.metadata, META_STATUS_DESCRIPTION) : undefined);
    }
  }

  private addModelEnd(event: ScopeEvent): void {
    const hint = { dataSchema: event.data_schema, name: event.name };
    const usage = usageOf(event.data, hint);
    if (usage) this.tokens += usage.totalTokens ?? (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0);
    const cost = recordedCost(event.category_profile);
    if (cost !== undefined) this.costUsd = Math.round(((this.costUsd ?? 0) + cost.total) * 1e12) / 1e12;
    const model = profileString(event, "model_name") ?? modelOf(null, event.data, hint);
    if (model !== undefined) this.models.add(model);
  }

  status(): RunStatus {
    if (!this.rootEnded) return "running";
    if (this.rootError) return "error";
    if ((this.rootPending && !this.resumed) || this.pending.size > 0) return "suspended";
    return "ok";
  }

  /** Takes `other` (a run whose root turned out to be inside this one) into this record. */
  absorb(other: RunRecord): void {
    other.mergedInto = this;
    // Lines stay in reading order: file, then offset.
    const triples: number[][] = [];
    for (const list of [this.refs, other.refs])
      for (let i = 0; i < list.length; i += 3) triples.push([list[i]!, list[i + 1]!, list[i + 2]!]);
    triples.sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
    this.refs = triples.flat();
    other.refs = [];
    for (const f of other.files) this.files.add(f);
    this.firstUs = Math.min(this.firstUs, other.firstUs);
    this.sessionId ??= other.sessionId;
    this.userId ??= other.userId;
    for (const t of other.tags) if (!this.tags.includes(t)) this.tags.push(t);
    this.spans += other.spans;
    this.llmCalls += other.llmCalls;
    this.toolCalls += other.toolCalls;
    this.errors += other.errors;
    this.tokens += other.tokens;
    if (other.costUsd !== undefined) this.costUsd = (this.costUsd ?? 0) + other.costUsd;
    for (const m of other.models) this.models.add(m);
    this.evaluations.push(...other.evaluations);
    for (const p of other.pending) this.pending.add(p);
    this.resumed ||= other.resumed;
  }

  summary(fileNames: readonly string[]): RunSummary {
    const start = this.rootStartUs ?? (Number.isFinite(this.firstUs) ? this.firstUs : 0);
    const out: RunSummary = {
      id: this.id,
      rootSpanId: this.id.slice(16),
      name: this.rootName,
      kind: this.rootKind,
      start,
      end: this.rootEnded ? (this.rootEndUs ?? start) : null,
      status: this.status(),
      tags: this.tags,
      spans: this.spans,
      llmCalls: this.llmCalls,
      toolCalls: this.toolCalls,
      errors: this.errors,
      tokens: this.tokens,
      models: [...this.models],
      evaluations: this.evaluations,
      files: [...this.files].sort((a, b) => a - b).map((f) => fileNames[f] ?? ""),
      version: this.version,
    };
    if (this.sessionId !== undefined) out.sessionId = this.sessionId;
    if (this.userId !== undefined) out.userId = this.userId;
    if (this.costUsd !== undefined) out.costUsd = this.costUsd;
    if (this.input !== undefined) out.input = this.input;
    if (this.output !== undefined) out.output = this.output;
    return out;
  }
}
