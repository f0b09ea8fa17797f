export { createClient, Client } from "./client.js";
export { createToolkit, Toolkit, BUILTIN_TOOL_NAMES } from "./toolkit.js";
export type { ToolkitOptions } from "./toolkit.js";
export { defineTool, toToolResult } from "./tool.js";
export type { Tool, ToolContext, ToolDefinition, ToolReturn, ToolSource } from "./tool.js";
export { pending, pendingOf, authRequired, isRequest, sanitize } from "./pending.js";
export type { Answer, Request, ToolOutcome, ToolResult } from "./pending.js";
export { relayTool, isRelayRequest, relayCallsOf, relayAnswer, RELAY_KIND, RELAY_OUTPUT_KEY, RELAY_IS_ERROR_KEY } from "./relay.js";
export type { RelayCall, RelayResult } from "./relay.js";
export { InMemoryConversationStore } from "./store.js";
export type { ConversationStore } from "./store.js";
export { chainHooks } from "./hooks.js";
export type { BodyTransform } from "./request-body.js";
export { listSkills, skillsCatalog, SKILL_TOOL_DESCRIPTION } from "./skills.js";
export type { SkillInfo, SkillInventory, SkillSkipReason } from "./skills.js";
export type { ToolArgs } from "./tool.js";
export type { FromJsonSchema } from "./schema-types.js";
export type { StandardSchemaLike } from "./standard-schema.js";
export type { BuiltinName } from "./builtins/index.js";
export type { AgentRuntime, ScopeControlLike } from "./runtime-port.js";
export type {
  AbandonOptions,
  AfterLlmEvent,
  AfterToolEvent,
  AskOptions,
  AskResumeOptions,
  BeforeLlmEvent,
  BeforeToolEvent,
  ClientOptions,
  HaltRecord,
  Hooks,
  LlmErrorInfo,
  Metric,
  ResumeOptions,
  RunOptions,
  RunResult,
  RunStatus,
  RunUsage,
  StreamEvent,
  StreamOptions,
  ToolCallRecord,
} from "./types.js";
// From the provider layer: what users of the loop need to name.
export {
  codecFor,
  ProviderError,
  ProviderHttpError,
  ProviderResponseError,
  ProviderConnectionError,
  ProviderTimeoutError,
} from "./providers/index.js";
export type { ProviderStyle, ToolDeclaration, Usage, ProviderCodec } from "./providers/index.js";
export { translate } from "./translate.js";
export type { TranslateOptions, TranslateResult } from "./translate.js";
