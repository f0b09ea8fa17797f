// §7 The provider SDK wrappers: the same SDK call (a JSON chat request answered by an in-process
// `fetch`, so no socket is timed) untraced (twice: two clients, whose spread is the noise), traced
// with no subscriber at all, and traced with one subscriber; interleaved rounds, ratios against the
// untraced call in the same run. A traced Anthropic client skips the SDK's own (no-op) span work.
import { distUrl } from "../lib/load.mjs";
import { ratio, table, us } from "../lib/format.mjs";
import { interleave } from "../lib/stats.mjs";

const json = (body) => () => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

const CHAT = json({
  id: "c1",
  object: "chat.completion",
  model: "gpt-4.1-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});
const MESSAGE = json({
  id: "m1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn",
  usage: { input_tokens: 5, output_tokens: 1 },
});
const GEMINI = json({
  candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 },
});

/** One SDK: how to build a client whose fetch answers in-process, the wrapper, and one call. */
async function sdks(dist) {
  const [{ default: OpenAI }, { default: Anthropic }, { GoogleGenAI }] = await Promise.all([
    import("openai"),
    import("@anthropic-ai/sdk"),
    import("@google/genai"),
  ]);
  const [{ traceOpenAI }, { traceAnthropic }, { traceGoogleGenAI }] = await Promise.all([
    import(new URL("src/integrations/openai/index.js", dist).href),
    import(new URL("src/integrations/anthropic/index.js", dist).href),
    import(new URL("src/integrations/google-genai/index.js", dist).href),
  ]);
  return [
    {
      name: "openai chat.completions.create",
      client: () => new OpenAI({ apiKey: "k", baseURL: "http://127.0.0.1:9/v1", maxRetries: 0, fetch: async () => CHAT() }),
      trace: traceOpenAI,
      call: (c) => c.chat.completions.create({ model: "gpt-4.1-mini", messages: [{ role: "user", content: "hi" }] }),
    },
    {
      name: "anthropic messages.create",
      client: () => new Anthropic({ apiKey: "k", baseURL: "http://127.0.0.1:9", maxRetries: 0, fetch: async () => MESSAGE() }),
      trace: traceAnthropic,
      call: (c) => c.messages.create({ model: "claude-sonnet-4-5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    },
    {
      name: "google-genai models.generateContent",
      client: () => new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: "http://127.0.0.1:9", fetch: async () => GEMINI() } }),
      trace: traceGoogleGenAI,
      call: (c) => c.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }),
    },
  ];
}

export async function runSdks(cfg, root) {
  const dist = distUrl(root);
  const { createRuntime } = await import(new URL("src/index.js", dist).href);
  const rows = [];
  for (const sdk of await sdks(dist)) {
    const quiet = createRuntime();
    const recording = createRuntime();
    recording.subscribe("bench", () => undefined);
    const untraced = sdk.client();
    // A second untraced client, measured like the others: the spread between the two is the noise.
    const control = sdk.client();
    const bare = sdk.trace(sdk.client(), { runtime: quiet });
    const traced = sdk.trace(sdk.client(), { runtime: recording });
    const loop = (client) => async (n) => {
      for (let i = 0; i < n; i++) await sdk.call(client);
    };
    const stats = await interleave(
      [
        { name: "untraced", run: loop(untraced) },
        { name: "control", run: loop(control) },
        { name: "noSubscriber", run: loop(bare) },
        { name: "subscriber", run: loop(traced), afterRound: () => recording.flush() },
      ],
      cfg,
    );
    await recording.shutdown();
    rows.push({
      sdk: sdk.name,
      untracedNs: stats.untraced.median,
      controlRatio: stats.control.median / stats.untraced.median,
      noSubscriberNs: stats.noSubscriber.median,
      subscriberNs: stats.subscriber.median,
      noSubscriberRatio: stats.noSubscriber.median / stats.untraced.median,
      subscriberRatio: stats.subscriber.median / stats.untraced.median,
    });
  }
  return { config: cfg, rows };
}

export function formatSdks(result) {
  return [
    "Median µs per call (in-process fetch: the SDK's own work plus relaytrace's, no socket), ratio to the untraced client:",
    table(
      [
        "SDK call",
        "untraced µs",
        "2nd untraced client ×",
        "traced, no subscriber µs",
        "× untraced",
        "traced, one subscriber µs",
        "× untraced",
      ],
      result.rows.map((r) => [
        r.sdk,
        us(r.untracedNs),
        ratio(r.controlRatio),
        us(r.noSubscriberNs),
        ratio(r.noSubscriberRatio),
        us(r.subscriberNs),
        ratio(r.subscriberRatio),
      ]),
    ),
  ].join("\n");
}
