// Compiled by test/runtime/runtime-typed-llm-calls.test.ts with `tsc --noEmit` (strict): each line
// states a type the public API promises; a `@ts-expect-error` that is not needed fails the compile too.
import Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { GoogleGenAI, type GenerateContentResponse } from "@google/genai";
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { CreateEmbeddingResponse } from "openai/resources/embeddings";
import { createRuntime, type Json } from "relaytrace";
import { traceAnthropic } from "relaytrace/anthropic";
import { traceGoogleGenAI } from "relaytrace/google-genai";
import { traceOpenAI } from "relaytrace/openai";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_: T): void => undefined;

const runtime = createRuntime();
const openai = new OpenAI({ apiKey: "sk-test" });
const anthropic = new Anthropic({ apiKey: "sk-ant-test" });
const ai = new GoogleGenAI({ apiKey: "g-test" });

export async function typedManagedCalls(): Promise<void> {
  // The SDK's request type is a request body as it is; the result is the SDK's reply type, no cast.
  const body: ChatCompletionCreateParamsNonStreaming = { model: "gpt-4.1-mini", messages: [{ role: "user", content: "hi" }] };
  const reply = await runtime.executeLlm("openai.chat", { content: body }, () => openai.chat.completions.create(body));
  const completion: ChatCompletion = reply;
  assertType<Equal<typeof completion.choices, ChatCompletion["choices"]>>(true);

  // The callback gets the request back with the body's own type.
  await runtime.executeLlm("openai.chat", { content: body }, (request) => {
    assertType<Equal<typeof request.content, ChatCompletionCreateParamsNonStreaming>>(true);
    return openai.chat.completions.create(request.content);
  });

  const params: MessageCreateParamsNonStreaming = {
    model: "claude-sonnet-4-5",
    max_tokens: 64,
    messages: [{ role: "user", content: "hi" }],
  };
  const message: Message = await runtime.executeLlm("anthropic.messages", { content: params }, () => anthropic.messages.create(params));
  void message.content;

  const gemini = await runtime.executeLlm("gemini.generate_content", { content: { contents: "hi" } }, () =>
    ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }),
  );
  assertType<Equal<typeof gemini, GenerateContentResponse>>(true);

  const embedding: CreateEmbeddingResponse = await runtime.executeLlm("openai.embeddings", { content: { input: "hi" } }, () =>
    openai.embeddings.create({ model: "text-embedding-3-small", input: "hi" }),
  );
  void embedding.data;

  // A plain callback returning JSON still types as before.
  const json = await runtime.executeLlm("custom", { content: { prompt: "hi" } }, async () => ({ text: "ok" }) as Json);
  assertType<Equal<typeof json, Json>>(true);
  // A synchronous callback's value is the result.
  const sync = await runtime.executeLlm("custom", { content: null }, () => 42);
  assertType<Equal<typeof sync, number>>(true);

  // Streams: the chunk type comes from the SDK's stream, including through the promise an SDK returns.
  for await (const chunk of runtime.executeLlmStream("openai.chat", { content: body }, () =>
    openai.chat.completions.create({ ...body, stream: true }),
  )) {
    assertType<Equal<typeof chunk, ChatCompletionChunk>>(true);
  }
  for await (const event of runtime.executeLlmStream("anthropic.messages", { content: params }, () =>
    anthropic.messages.create({ ...params, stream: true }),
  )) {
    assertType<Equal<typeof event, RawMessageStreamEvent>>(true);
  }
  for await (const chunk of runtime.executeLlmStream("gemini.generate_content", { content: null }, () =>
    ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hi" }),
  )) {
    assertType<Equal<typeof chunk, GenerateContentResponse>>(true);
  }

  // @ts-expect-error -- a request needs its body under `content`
  await runtime.executeLlm("openai.chat", body, () => openai.chat.completions.create(body));
}

// The wrappers hand back the client they were given, with its own type.
const tracedOpenAI = traceOpenAI(openai, { runtime, captureContent: false, name: "chat" });
assertType<Equal<typeof tracedOpenAI, OpenAI>>(true);
const tracedAnthropic = traceAnthropic(anthropic);
assertType<Equal<typeof tracedAnthropic, Anthropic>>(true);
const tracedGemini = traceGoogleGenAI(ai, { runtime });
assertType<Equal<typeof tracedGemini, GoogleGenAI>>(true);
// @ts-expect-error -- captureContent is a boolean
traceOpenAI(openai, { captureContent: "no" });
