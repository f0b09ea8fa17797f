import type { Json } from "../events/json.js";
import type { LlmStreamIntercept } from "./llm-stream.js";
import { REGISTRATION_OPTIONS } from "./options.js";
import type {
  Registries,
  LlmExecutionIntercept,
  LlmGuardrail,
  LlmRequestIntercept,
  ToolGuardrail,
  ToolRequestIntercept,
} from "./runtime-core.js";
import type {
  EventNameSanitizer,
  EventSanitizer,
  MetadataInjector,
  RegistrationOptions,
  Remover,
  RequestInterceptOptions,
  ToolExecutionIntercept,
} from "./types.js";

/**
 * What an app can register on a runtime: guardrails, intercepts and sanitizers for tool and LLM
 * calls, metadata injectors and event sanitizers. Each lands in its priority-ordered registry,
 * for the whole runtime or (`options.scope`) for one scope and what runs inside it; each returns
 * the function that removes it. `Runtime` extends this class.
 */
export abstract class RuntimeRegistrations {
  protected constructor(private readonly registries: Registries) {}

  /** A guardrail on raw tool args: return a reason string to reject the call before it starts. */
  registerToolConditionalGuardrail(name: string, priority: number, fn: ToolGuardrail, options?: RegistrationOptions): Remover {
    return this.registries.toolGuardrails.add(name, priority, fn, scopeOf(options));
  }

  /** Rewrites the real tool args before the start event; `breakChain` stops the later ones. */
  registerToolRequestIntercept(name: string, priority: number, fn: ToolRequestIntercept, options?: RequestInterceptOptions): Remover {
    return this.registries.toolRequestIntercepts.add(name, priority, fn, {
      ...scopeOf(options),
      breakChain: options?.breakChain === true,
    });
  }

  /** Wraps tool execution (lowest priority outermost): call `next` 0..n times, return `{result, annotation?, pendingMarks?}`. */
  registerToolExecutionIntercept(name: string, priority: number, fn: ToolExecutionIntercept, options?: RegistrationOptions): Remover {
    return this.registries.toolExecutionIntercepts.add(name, priority, fn, scopeOf(options));
  }

  /** Rewrites the tool start event's `data` only (the tool still gets the real args). Fails closed. */
  registerToolSanitizeRequest(
    name: string,
    priority: number,
    fn: (tool: string, args: Json) => Json,
    options?: RegistrationOptions,
  ): Remover {
    return this.registries.toolSanitizeRequest.add(name, priority, fn, scopeOf(options));
  }

  /** Rewrites the tool end event's `data` only; never sees the annotation. Fails closed. */
  registerToolSanitizeResponse(
    name: string,
    priority: number,
    fn: (tool: string, result: Json) => Json,
    options?: RegistrationOptions,
  ): Remover {
    return this.registries.toolSanitizeResponse.add(name, priority, fn, scopeOf(options));
  }

  /** A guardrail on the LLM request: return a reason string to reject the call. */
  registerLlmConditionalGuardrail(name: string, priority: number, fn: LlmGuardrail, options?: RegistrationOptions): Remover {
    return this.registries.llmGuardrails.add(name, priority, fn, scopeOf(options));
  }

  /** Rewrites the real LLM request before the start event; `breakChain` stops the later ones. */
  registerLlmRequestIntercept(name: string, priority: number, fn: LlmRequestIntercept, options?: RequestInterceptOptions): Remover {
    return this.registries.llmRequestIntercepts.add(name, priority, fn, {
      ...scopeOf(options),
      breakChain: options?.breakChain === true,
    });
  }

  /** Wraps the provider call: `(request, next, info) => response`. */
  registerLlmExecutionIntercept(name: string, priority: number, fn: LlmExecutionIntercept, options?: RegistrationOptions): Remover {
    return this.registries.llmExecutionIntercepts.add(name, priority, fn, scopeOf(options));
  }

  /** Wraps managed streams: `(request, next, info) => chunks`, to observe or transform the chunks the caller sees. */
  registerLlmStreamExecutionIntercept(name: string, priority: number, fn: LlmStreamIntercept, options?: RegistrationOptions): Remover {
    return this.registries.llmStreamIntercepts.add(name, priority, fn, scopeOf(options));
  }

  /** Rewrites the LLM start event's `data` (credentials are already stripped). Fails closed. */
  registerLlmSanitizeRequest(name: string, priority: number, fn: (request: Json) => Json, options?: RegistrationOptions): Remover {
    return this.registries.llmSanitizeRequest.add(name, priority, fn, scopeOf(options));
  }

  /** Rewrites the LLM end event's `data`. Fails closed. */
  registerLlmSanitizeResponse(name: string, priority: number, fn: (response: Json) => Json, options?: RegistrationOptions): Remover {
    return this.registries.llmSanitizeResponse.add(name, priority, fn, scopeOf(options));
  }

  /** Adds metadata keys to every event (insert-only; values scalar or homogeneous arrays). Fails open. */
  registerMetadataInjector(name: string, priority: number, fn: MetadataInjector, options?: RegistrationOptions): Remover {
    return this.registries.injectors.add(name, priority, fn, scopeOf(options));
  }

  /**
   * Replaces a mark's `data`, `categoryProfile` and `metadata`: the returned object replaces all
   * three, so return `{ ...fields, data }` to keep the others (an omitted field is cleared).
   * A throwing or invalid sanitizer clears all three (fails closed).
   */
  registerMarkSanitizer(name: string, priority: number, fn: EventSanitizer, options?: RegistrationOptions): Remover {
    return this.registries.markSanitizers.add(name, priority, fn, scopeOf(options));
  }

  /**
   * Rewrites every event's `name` before anything else sees it: names can carry what the model
   * chose (an undeclared tool name), and they become span names. A throwing sanitizer makes the
   * name `[redacted]` (fails closed). Start and end of a scope must map alike: keep it a pure function.
   */
  registerEventNameSanitizer(name: string, priority: number, fn: EventNameSanitizer, options?: RegistrationOptions): Remover {
    return this.registries.nameSanitizers.add(name, priority, fn, scopeOf(options));
  }

  /** As `registerMarkSanitizer`, for scope start events. */
  registerScopeStartSanitizer(name: string, priority: number, fn: EventSanitizer, options?: RegistrationOptions): Remover {
    return this.registries.scopeStartSanitizers.add(name, priority, fn, scopeOf(options));
  }

  /** As `registerMarkSanitizer`, for scope end events; the only stage that can change the tool annotation. */
  registerScopeEndSanitizer(name: string, priority: number, fn: EventSanitizer, options?: RegistrationOptions): Remover {
    return this.registries.scopeEndSanitizers.add(name, priority, fn, scopeOf(options));
  }
}

function scopeOf(options: RegistrationOptions | undefined): { scopeUuid?: string } {
  REGISTRATION_OPTIONS.check(options, "register");
  return options?.scope ? { scopeUuid: options.scope.uuid } : {};
}
