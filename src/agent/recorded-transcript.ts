import type { Json, JsonObject } from "../events/json.js";
import { isLongLived } from "../events/long-lived-json.js";
import { longLivedJson, toJsonSafe } from "../runtime/json-safe.js";
import type { ClientSettings } from "./loop-context.js";

/**
 * The run's transcript as the loop sends and the runtime records it. Every provider call's body
 * carries the whole history again; each message (and the declared tool list) is replaced once by
 * the runtime's frozen recurring copy (`longLivedJson`), so the next body holds the same frozen
 * objects: the transport writes the body from their remembered JSON texts, its event takes them
 * without copying, and exporters reuse their texts and decode instead of redoing the whole
 * history on every turn. Done whether or not the run is recorded, so a traced and an untraced run
 * send their bodies the same way (tracing's cost is then only its own). Skipped when a
 * `beforeLLM` hook sees the transcript (it may edit a message in place). The run hands back plain
 * mutable copies, as it always did.
 */
export class RecordedTranscript {
  private froze = false;
  private tools: { declared: unknown; value: Json } | undefined;

  constructor(private readonly settings: ClientSettings) {}

  private active(): boolean {
    return !this.settings.hooks.seesMessages;
  }

  /** Before a body is built: each message not yet frozen is replaced by its frozen copy. */
  prepare(messages: unknown[]): void {
    if (!this.active()) return;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      if (isLongLived(message)) continue;
      const frozen = longLivedJson(message);
      if (frozen === undefined) continue; // not plain JSON as it is: sent and copied per event as before
      messages[i] = frozen;
      this.froze = true;
    }
  }

  /** After a body is built from `declared`: its tool list, frozen once per declared list. */
  shareTools(body: JsonObject, declared: unknown): void {
    const tools = body["tools"];
    if (tools === undefined || !this.active()) return;
    const shared = this.tools;
    if (shared !== undefined && shared.declared === declared) {
      body["tools"] = shared.value; // the same declarations encode to the same list
      return;
    }
    const frozen = longLivedJson(tools, true);
    if (frozen === undefined) return;
    body["tools"] = frozen;
    this.tools = { declared, value: frozen };
  }

  /** When the run returns: frozen messages become plain copies again (the caller may edit them). */
  release(messages: unknown[]): void {
    if (!this.froze) return;
    for (let i = 0; i < messages.length; i++) if (isLongLived(messages[i])) messages[i] = toJsonSafe(messages[i]);
  }
}
