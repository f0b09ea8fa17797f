// `node --import relaytrace/register app.js`: the default runtime built from the environment, each
// variable tried in a child process of its own, against real files and a real OTLP receiver.
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { blocksOf, ROOT } from "../support/doc-blocks.js";
import { attributesOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";
import { filesIn, makeRegisterApp, RECORDING_APP, type RegisterApp } from "../support/register-app.js";

const SECRETS = ["SECRET-PROMPT", "SECRET-REPLY", "SECRET-ARG", "SECRET-RESULT"];

let app: RegisterApp;
let receiver: OtlpReceiver;
let run = 0;
beforeAll(async () => {
  app = await makeRegisterApp({ "app.mjs": RECORDING_APP });
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await app?.remove();
  await receiver?.close();
});

/** A fresh output folder per run, so each test reads only its own files. */
function outDir(name: string): string {
  return join(app.dir, `out-${++run}-${name}`);
}

async function runApp(env: Record<string, string>) {
  const child = app.start("app.mjs", env);
  const exit = await child.exited;
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() };
}

function eventsOf(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The spans the receiver got from the child that used `serviceName`. */
function spansFrom(serviceName: string): Record<string, unknown>[] {
  return receiver.received
    .filter((r) => r.signal === "traces")
    .flatMap((r) => {
      const resources = (r.body as { resourceSpans?: { resource?: { attributes?: unknown[] } }[] }).resourceSpans ?? [];
      const ours = resources.some((rs) => attributesOf(rs.resource?.attributes)["service.name"] === serviceName);
      return ours ? spansOf(r.body) : [];
    });
}

describe("relaytrace/register", () => {
  it("with nothing set, creates no file, sends nothing and prints nothing", async () => {
    const before = await readdir(app.dir);
    const result = await runApp({});
    expect(result).toMatchObject({ code: 0, stdout: "app done\n", stderr: "" });
    expect(await readdir(app.dir)).toEqual(before);
  });

  it("RELAYTRACE_ATOF_DIR writes the run's events to an ATOF file there", async () => {
    const dir = outDir("atof");
    const result = await runApp({ RELAYTRACE_ATOF_DIR: dir });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const files = await filesIn(dir);
    expect(files.map((f) => f.name)).toEqual([expect.stringMatching(/^relaytrace-atof-.*\.jsonl$/)]);
    const events = eventsOf(files[0]!.text);
    expect(events.map((e) => `${String(e["scope_category"])} ${String(e["name"])}`)).toEqual([
      "start support-run",
      "start chat",
      "end chat",
      "start lookup",
      "end lookup",
      "end support-run",
    ]);
    // content is captured by default
    for (const secret of SECRETS) expect(files[0]!.text).toContain(secret);
  });

  it("RELAYTRACE_ATIF_DIR writes a trajectory there, named for the app's package", async () => {
    const dir = outDir("atif");
    const result = await runApp({ RELAYTRACE_ATIF_DIR: dir });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const files = await filesIn(dir);
    expect(files).toHaveLength(1);
    const trajectory = JSON.parse(files[0]!.text) as { schema_version: string; agent: Record<string, string>; steps: unknown[] };
    expect(trajectory.schema_version).toBe("ATIF-v1.7");
    expect(trajectory.agent).toMatchObject({ name: "shop-agent", version: "1.2.3", model_name: "gpt-x" });
    expect(JSON.stringify(trajectory.steps)).toContain("SECRET-REPLY");
  });

  it("OTEL_EXPORTER_OTLP_ENDPOINT sends openinference spans there, with the OTEL_* variables applied", async () => {
    const result = await runApp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "svc-endpoint" });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const spans = spansFrom("svc-endpoint");
    expect(spans.map((s) => s["name"]).sort()).toEqual(["chat", "lookup", "support-run"]);
    const chat = attributesOf(spans.find((s) => s["name"] === "chat")!["attributes"]);
    expect(chat["openinference.span.kind"]).toBe("LLM");
  });

  it("OTEL_TRACES_EXPORTER=otlp with RELAYTRACE_OTEL_PROJECTION=gen_ai sends gen_ai spans", async () => {
    const result = await runApp({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_SERVICE_NAME: "svc-gen-ai",
      RELAYTRACE_OTEL_PROJECTION: "gen_ai",
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const spans = spansFrom("svc-gen-ai");
    const chat = spans.find((s) => attributesOf(s["attributes"])["gen_ai.operation.name"] === "chat");
    expect(chat).toBeDefined();
    expect(attributesOf(chat!["attributes"])["openinference.span.kind"]).toBeUndefined();
  });

  it("RELAYTRACE_CAPTURE_CONTENT=false keeps prompts, completions, tool arguments and results out of ATOF, ATIF and spans", async () => {
    const atof = outDir("atof-nocontent");
    const atif = outDir("atif-nocontent");
    const result = await runApp({
      RELAYTRACE_ATOF_DIR: atof,
      RELAYTRACE_ATIF_DIR: atif,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "svc-no-content",
      RELAYTRACE_CAPTURE_CONTENT: "false",
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const written = [...(await filesIn(atof)), ...(await filesIn(atif))];
    expect(written).toHaveLength(2);
    const spans = JSON.stringify(spansFrom("svc-no-content"));
    expect(spans).toContain("support-run");
    for (const text of [...written.map((f) => f.text), spans]) {
      for (const secret of [...SECRETS, "ada@example.com"]) expect(text).not.toContain(secret);
    }
    // the structure stays: the model, the token counts, the tool's name and call id
    const events = eventsOf(written[0]!.text);
    const chatEnd = events.find((e) => e["name"] === "chat" && e["scope_category"] === "end")!;
    expect(chatEnd["data"]).toMatchObject({ model: "gpt-x", usage: { prompt_tokens: 3, completion_tokens: 2 } });
    expect(written[1]!.text).toContain('"tool_call_id": "call_1"');
  });

  it("RELAYTRACE_REDACT=pii redacts personal data in what is written", async () => {
    const dir = outDir("atof-pii");
    const result = await runApp({ RELAYTRACE_ATOF_DIR: dir, RELAYTRACE_REDACT: "pii" });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const [file] = await filesIn(dir);
    expect(file!.text).not.toContain("ada@example.com");
    expect(file!.text).toContain("[REDACTED:email]");
  });

  it.each([
    ["RELAYTRACE_CAPTURE_CONTENT", "maybe", "true or false"],
    ["RELAYTRACE_OTEL_PROJECTION", "zipkin", "openinference, gen_ai, full"],
    ["RELAYTRACE_REDACT", "emails", "pii"],
  ])("a bad %s prints one line naming it and what it accepts, and the app still runs", async (variable, value, accepts) => {
    const dir = outDir("atof-bad");
    const result = await runApp({ RELAYTRACE_ATOF_DIR: dir, [variable]: value });
    expect(result).toMatchObject({ code: 0, stdout: "app done\n" });
    const lines = result.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    expect(lines[0]).toContain(accepts);
    expect(await filesIn(dir)).toHaveLength(1);
  });

  it("an unknown RELAYTRACE_CAPTURE_CONTENT withholds content rather than send it", async () => {
    const dir = outDir("atof-maybe");
    await runApp({ RELAYTRACE_ATOF_DIR: dir, RELAYTRACE_CAPTURE_CONTENT: "maybe" });
    const [file] = await filesIn(dir);
    for (const secret of SECRETS) expect(file!.text).not.toContain(secret);
  });

  it("an exporter the OTEL_* variables make impossible is one line; the other exporters still record", async () => {
    const dir = outDir("atof-grpc");
    const result = await runApp({
      RELAYTRACE_ATOF_DIR: dir,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    });
    expect(result).toMatchObject({ code: 0, stdout: "app done\n" });
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringContaining("grpc")]);
    expect(eventsOf((await filesIn(dir))[0]!.text)).toHaveLength(6);
  });
});

describe("relaytrace/register on the README's front page", () => {
  it("the first code block a reader meets is the one-line start, and it records the app's run", async () => {
    const [first] = blocksOf("README.md", await readFile(join(ROOT, "README.md"), "utf8"));
    expect(first).toMatchObject({ kind: "register", code: "RELAYTRACE_ATOF_DIR=traces node --import relaytrace/register app.js" });
    const frontApp = await makeRegisterApp({ "app.js": RECORDING_APP });
    try {
      const env = { PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`, HOME: frontApp.dir };
      const result = await new Promise<{ error: Error | null; stdout: string; stderr: string }>((resolve) =>
        execFile("sh", ["-c", first!.code], { cwd: frontApp.dir, env }, (error, stdout, stderr) => resolve({ error, stdout, stderr })),
      );
      expect(result).toEqual({ error: null, stdout: "app done\n", stderr: "" });
      const [file] = await filesIn(join(frontApp.dir, "traces"));
      expect(eventsOf(file!.text)).toHaveLength(6);
    } finally {
      await frontApp.remove();
    }
  });
});

describe("relaytrace/register with the app's own ai 7", () => {
  let provider: ScriptedProvider;
  let aiApp: RegisterApp;
  beforeAll(async () => {
    provider = await startScriptedProvider({ turns: [{ text: "Four.", usage: { promptTokens: 9, completionTokens: 2 } }] });
    aiApp = await makeRegisterApp(
      {
        "app.mjs": `
import { generateText } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
const model = createOpenAICompatible({ name: "scripted", baseURL: process.env.PROVIDER_URL, apiKey: "sk-test" }).chatModel("gpt-4.1-mini");
const { text } = await generateText({ model, prompt: "What is 2 + 2?" });
console.log(text);
`,
      },
      { ai: "ai7", "@ai-sdk/openai-compatible": "openai-compatible7" },
    );
  });
  afterAll(async () => {
    await provider?.close();
    await aiApp?.remove();
  });

  it("traces a plain generateText with no code change", async () => {
    const dir = join(aiApp.dir, "atof");
    const child = aiApp.start("app.mjs", { RELAYTRACE_ATOF_DIR: dir, PROVIDER_URL: provider.url });
    expect(await child.exited).toMatchObject({ code: 0 });
    expect(child.stdout()).toBe("Four.\n");
    expect(child.stderr()).toBe("");
    const events = eventsOf((await filesIn(dir))[0]!.text);
    expect(events.map((e) => `${String(e["scope_category"])} ${String(e["category"])}`)).toEqual([
      "start agent",
      "start llm",
      "end llm",
      "end agent",
    ]);
    expect(JSON.stringify(events)).toContain("What is 2 + 2?");
  });
});
