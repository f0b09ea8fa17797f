import type { LanguageModelMiddleware } from "ai";

/**
 * The AI SDK's language-model (v3) call shapes, taken from the middleware type `ai` exports, so
 * this adapter needs nothing but `ai` itself.
 */
type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>;

export type CallOptions = Parameters<WrapGenerate>[0]["params"];
export type LanguageModel = Parameters<WrapGenerate>[0]["model"];
export type GenerateResult = Awaited<ReturnType<Parameters<WrapGenerate>[0]["doGenerate"]>>;
export type StreamResult = Awaited<ReturnType<Parameters<WrapStream>[0]["doStream"]>>;
export type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
export type Content = GenerateResult["content"][number];
export type FinishReason = GenerateResult["finishReason"];
export type Usage = GenerateResult["usage"];
export type Prompt = CallOptions["prompt"];
type ToolMessage = Extract<Prompt[number], { role: "tool" }>;
export type ToolResultOutput = Extract<ToolMessage["content"][number], { type: "tool-result" }>["output"];
