import { GoogleGenAI, type CallableTool, type FunctionCall, type Part } from "@google/genai";
import { describe, expect, it } from "vitest";
import { spanIdOf } from "relaytrace";
import { traceGoogleGenAI } from "relaytrace/google-genai";
import { startScriptedProvider } from "relaytrace/testing";
import { geminiCodec } from "../../src/wire/index.js";
import { ended, eventText, sdkServers, scopesOf, sdkRun, sseReply, turn } from "../support/sdk-run.js";

const MODEL = "gemini-2.5-flash";
const KEY = "AIzaSy-test-7d1f0c2b9e";
const { cleanups, scripted, provider } = sdkServers("gemini", MODEL);

const genai = (baseUrl: string) => new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl } });
const replyText = (data: unknown) => geminiCodec.decodeResponse(data).text;

describe("traceGoogleGenAI: models.generateContent and generateContentStream", () => {
  it("generateContent: one llm scope under the app's scope, the REST body the SDK built, the reply through the Gemini codec, cost and gen_ai", async () => {
    const server = await scripted([{ text: "Sky is blue.", usage: { promptTokens: 3000, completionTokens: 1000 } }]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.url), { runtime: run.runtime });
    let parent = "";
    const response = await run.runtime.withScope("explainer", (scope) => {
      parent = scope.uuid;
      return ai.models.generateContent({
        model: MODEL,
        contents: "Why is the sky blue?",
        config: { systemInstruction: "Answer briefly.", temperature: 0.3 },
      });
    });
    expect(response.text).toBe("Sky is blue.");
    const { events, spans } = await run.finish();
    const [call] = scopesOf(events);
    // The request as the SDK sent it: its REST form, not the app's parameters.
    expect(call!.start).toMatchObject({
      name: "gemini.generate_content",
      parent_uuid: parent,
      category_profile: { model_name: MODEL },
      data_schema: { name: "gemini/generate-content", version: "1" },
      data: {
        content: {
          contents: [{ role: "user", parts: [{ text: "Why is the sky blue?" }] }],
          systemInstruction: { parts: [{ text: "Answer briefly." }] },
          generationConfig: { temperature: 0.3 },
        },
      },
    });
    expect(replyText(call!.end!.data)).toBe("Sky is blue.");
    expect(call!.end).toMatchObject({ category_profile: { cost: { total: 0.005 } }, metadata: { "otel.status_code": "OK" } });
    const chat = spans.find((s) => s.name === `generate_content ${MODEL}`);
    expect(chat?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 3000, "gen_ai.usage.output_tokens": 1000 });
  });

  it("generateContentStream: the app iterates the SDK's chunks; the scope records the assembled reply and time to first chunk", async () => {
    const server = await scripted([{ text: "Streamed gemini", usage: { promptTokens: 6, completionTokens: 2 } }]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.url), { runtime: run.runtime });
    let text = "";
    for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: "hi" })) text += chunk.text ?? "";
    expect(text).toBe("Streamed gemini");
    const [call] = await ended(run, 1);
    expect(call!.start.attributes).toEqual(["streaming"]);
    expect(replyText(call!.end!.data)).toBe("Streamed gemini");
    expect(call!.end!.data).toMatchObject({ usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 2 } });
    expect(call!.end!.metadata).toMatchObject({ "otel.status_code": "OK", time_to_first_chunk_ms: expect.any(Number) });
  });

  it("automatic function calling: each model request the SDK sends for one call is its own llm scope, with its own usage", async () => {
    const server = await scripted([
      { toolCalls: [{ id: "fc_1", name: "get_weather", arguments: { city: "Oslo" } }], usage: { promptTokens: 20, completionTokens: 5 } },
      { text: "It is 4 degrees in Oslo.", usage: { promptTokens: 40, completionTokens: 9 } },
    ]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.url), { runtime: run.runtime });
    const called: FunctionCall[] = [];
    const weather: CallableTool = {
      tool: async () => ({ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object" } }] }),
      callTool: async (calls: FunctionCall[]): Promise<Part[]> => {
        called.push(...calls);
        return calls.map((c) => ({ functionResponse: { id: c.id ?? "", name: c.name ?? "", response: { output: "4 degrees" } } }));
      },
    };
    const response = await ai.models.generateContent({ model: MODEL, contents: "Weather in Oslo?", config: { tools: [weather] } });
    expect(response.text).toBe("It is 4 degrees in Oslo.");
    expect(called.map((c) => c.name)).toEqual(["get_weather"]);
    const calls = await ended(run, 2);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => (c.end!.data as { usageMetadata: { promptTokenCount: number } }).usageMetadata.promptTokenCount)).toEqual([
      20, 40,
    ]);
    // The second request carries the model's call and the tool's answer, as the SDK sent them.
    expect(JSON.stringify(calls[1]!.start.data)).toContain("4 degrees");
  });

  it("an HTTP error: the app gets the SDK's ApiError, the scope ends ERROR with the status and the error body", async () => {
    const body = { error: { code: 400, message: "API key not valid", status: "INVALID_ARGUMENT" } };
    const server = await provider([{ status: 400, body }]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.baseUrl), { runtime: run.runtime });
    const error = await ai.models.generateContent({ model: MODEL, contents: "hi" }).catch((e: unknown) => e);
    expect((error as Error).constructor.name).toBe("ApiError");
    expect((error as { status: number }).status).toBe(400);
    const [call] = await ended(run, 1);
    expect(call!.end).toMatchObject({
      data: { status: 400, body },
      metadata: { "otel.status_code": "ERROR", "error.type": "invalid_request" },
    });
    expect((call!.end!.metadata as Record<string, string>)["otel.status_description"]).toContain("API key not valid");
  });

  it("an abort mid-stream through config.abortSignal: the app gets what the untraced client gives, the scope records what arrived, cancelled", async () => {
    const outcome = async (traced: boolean) => {
      const server = await provider([sseReply("gemini", turn("first part, then silence"), { hold: true, first: 1 })]);
      const run = sdkRun();
      const ai = traced ? traceGoogleGenAI(genai(server.baseUrl), { runtime: run.runtime }) : genai(server.baseUrl);
      const controller = new AbortController();
      let text = "";
      const error = await (async () => {
        for await (const chunk of await ai.models.generateContentStream({
          model: MODEL,
          contents: "hi",
          config: { abortSignal: controller.signal },
        })) {
          text += chunk.text ?? "";
          // The server sent one chunk and holds the stream open.
          controller.abort(new Error("user closed the tab"));
        }
      })().catch((e: unknown) => e);
      return { error, text, run };
    };
    const untraced = await outcome(false);
    const traced = await outcome(true);
    expect((traced.error as Error).constructor).toBe((untraced.error as Error).constructor);
    expect((traced.error as Error).message).toBe((untraced.error as Error).message);
    expect(traced.text).toBe(untraced.text);
    const [call] = await ended(traced.run, 1);
    expect(call!.end!.metadata).toMatchObject({
      "otel.status_code": "ERROR",
      "otel.status_description": "user closed the tab",
      "error.type": "cancelled",
    });
    expect(replyText(call!.end!.data)).toBe(traced.text);
  });

  it("50 concurrent calls, JSON and streamed, stay apart", async () => {
    const server = await startScriptedProvider({
      style: "gemini",
      model: MODEL,
      turns: (body) => ({ text: `re: ${(body as { contents: { parts: { text: string }[] }[] }).contents[0]!.parts[0]!.text}` }),
    });
    cleanups.push(() => server.close());
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.url), { runtime: run.runtime });
    const parents = new Map<string, string>();
    const texts = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        run.runtime.withScope(`task-${i}`, async (scope) => {
          parents.set(`q${i}`, scope.uuid);
          if (i % 2 === 0) return (await ai.models.generateContent({ model: MODEL, contents: `q${i}` })).text;
          let text = "";
          for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: `q${i}` })) text += chunk.text ?? "";
          return text;
        }),
      ),
    );
    expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `re: q${i}`));
    for (const call of await ended(run, 50)) {
      const question = (call.start.data as { content: { contents: { parts: { text: string }[] }[] } }).content.contents[0]!.parts[0]!.text;
      expect(call.start.parent_uuid).toBe(parents.get(question));
      expect(replyText(call.end!.data)).toBe(`re: ${question}`);
    }
  });
});

describe("traceGoogleGenAI: content and credentials", () => {
  it("captureContent: false keeps the contents, the system instruction and the reply out of every event; usage remains", async () => {
    const server = await scripted([{ text: "The CODEWORD-PELICAN is safe.", usage: { promptTokens: 11, completionTokens: 4 } }]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.url), { runtime: run.runtime, captureContent: false });
    await ai.models.generateContent({ model: MODEL, contents: "Tell CODEWORD-PELICAN", config: { systemInstruction: "SYSTEM-SECRET-SI" } });
    await ended(run, 1);
    const { events } = await run.finish();
    const text = eventText(events);
    for (const secret of ["CODEWORD-PELICAN", "SYSTEM-SECRET-SI"]) expect(text).not.toContain(secret);
    expect(scopesOf(events)[0]!.end!.data).toMatchObject({ usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 4 } });
  });

  it("the API key never reaches an event (its header is recorded as [redacted]); the request carries the llm scope's traceparent", async () => {
    const server = await scripted([{ text: "ok" }]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(genai(server.url), { runtime: run.runtime });
    await ai.models.generateContent({ model: MODEL, contents: "hi" });
    await ended(run, 1);
    const { events } = await run.finish();
    expect(eventText(events)).not.toContain(KEY);
    const [call] = scopesOf(events);
    expect(call!.start.data).toMatchObject({ headers: { "x-goog-api-key": "[redacted]" } });
    expect(server.requests[0]!.headers["x-goog-api-key"]).toBe(KEY);
    expect(server.requests[0]!.headers["traceparent"]).toBe(`00-${call!.start.uuid.replace(/-/g, "")}-${spanIdOf(call!.start.uuid)}-01`);
  });

  it("wrapping twice changes nothing; a non-client is a TypeError", async () => {
    const server = await scripted([{ text: "once" }]);
    const run = sdkRun();
    const ai = traceGoogleGenAI(traceGoogleGenAI(genai(server.url), { runtime: run.runtime }), { runtime: run.runtime });
    await ai.models.generateContent({ model: MODEL, contents: "hi" });
    expect(await ended(run, 1)).toHaveLength(1);
    expect(() => traceGoogleGenAI({} as never)).toThrow(
      "traceGoogleGenAI: ai must be a GoogleGenAI client (new GoogleGenAI()) (got an object)",
    );
  });
});
