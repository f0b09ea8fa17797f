import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AtifExporter,
  AtofExporter,
  OtelExporter,
  type AtifExporterOptions,
  type AtofExporterOptions,
  type OtelExporterOptions,
} from "../../exporters/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { runSampleAgent as runAgent } from "../support/sample-agent.js";

// Option objects with mistakes a JavaScript caller (or a cast) can make; the types forbid them.
const atof = (options: Record<string, unknown>) => () => new AtofExporter(options as unknown as AtofExporterOptions);
const atif = (options: Record<string, unknown>) => () => new AtifExporter(options as unknown as AtifExporterOptions);
const otel = (options: Record<string, unknown>) => () => new OtelExporter(options as unknown as OtelExporterOptions);

let dir: string;
const servers: Server[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-exporter-options-"));
});
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
  await rm(dir, { recursive: true, force: true });
});

/** A collector on 127.0.0.1 that records the path of every POST. */
async function collector(): Promise<{ base: string; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      paths.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

describe("AtofExporter options", () => {
  it("rejects an unknown key and suggests the intended one", () => {
    expect(atof({ type: "file", outputDir: dir })).toThrow(TypeError);
    expect(atof({ type: "file", outputDir: dir })).toThrow(
      /unknown option "outputDir" for a file sink \(did you mean "outputDirectory"\?\)/,
    );
  });

  it("rejects a key that belongs to the other sink type", () => {
    expect(atof({ type: "stream", url: "http://127.0.0.1:1/", path: "x.jsonl" })).toThrow(/unknown option "path" for a stream sink/);
  });

  it("rejects a bad mode, a missing or non-http(s) stream url, and a bad type", () => {
    expect(atof({ type: "file", outputDirectory: dir, mode: "truncate" })).toThrow(
      /mode must be one of "append", "overwrite" \(got "truncate"\)/,
    );
    expect(atof({ type: "stream" })).toThrow(/url must be an absolute http\(s\) URL/);
    expect(atof({ type: "stream", url: "localhost:8080/events" })).toThrow(/url .*http or https/);
    expect(atof({ type: "files", outputDirectory: dir })).toThrow(/type must be "file" or "stream"/);
  });

  it("still writes events from the real runtime when configured correctly (undefined keys allowed)", async () => {
    const runtime = createRuntime();
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, path: "events.jsonl", mode: undefined });
    exporter.register(runtime);
    await runAgent(runtime);
    await exporter.forceFlush();
    const lines = (await readFile(join(dir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { name: string });
    expect(lines.map((e) => e.name)).toEqual(expect.arrayContaining(["sample-agent", "add", "sample.checkpoint"]));
    await runtime.shutdown();
  });
});

describe("AtifExporter options", () => {
  it("requires an agent with string name and version", () => {
    expect(atif({ outputDirectory: dir })).toThrow(/agent must be an object/);
    expect(atif({ agent: "calc" })).toThrow(/agent must be an object/);
    expect(atif({ agent: { version: "1.0" } })).toThrow(/agent\.name must be a string/);
    expect(atif({ agent: { name: "calc", version: 1 } })).toThrow(/agent\.version must be a string \(got 1\)/);
  });

  it("rejects unknown keys, at the top level and inside agent", () => {
    expect(atif({ agent: { name: "calc", version: "1" }, output_directory: dir })).toThrow(
      /unknown option "output_directory" \(did you mean "outputDirectory"\?\)/,
    );
    expect(atif({ agent: { name: "calc", version: "1", model_name: "gpt" } })).toThrow(
      /unknown option "agent\.model_name" \(did you mean "agent\.modelName"\?\)/,
    );
    expect(atif({ agent: { name: "calc", version: "1" }, maxRetained: -1 })).toThrow(/maxRetained/);
  });

  it("still writes a trajectory from the real runtime when configured correctly", async () => {
    const runtime = createRuntime();
    const exporter = new AtifExporter({ agent: { name: "calc", version: "1.0.0" }, outputDirectory: dir });
    exporter.register(runtime);
    await runtime.withScope(
      "calc-agent",
      async () => {
        await runtime.executeLlm(
          "openai.chat_completions",
          { headers: {}, content: { model: "m", messages: [{ role: "user", content: "hi" }] } as never },
          async () => ({ model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hello" } }] }) as never,
        );
      },
      { category: "agent" },
    );
    await runtime.flush();
    await exporter.forceFlush();
    expect(await readdir(dir)).toHaveLength(1);
    const doc = JSON.parse(await readFile(exporter.files()[0]!, "utf8")) as { agent: { name: string }; steps: unknown[] };
    expect(doc.agent.name).toBe("calc");
    expect(doc.steps.length).toBeGreaterThan(0);
    await runtime.shutdown();
  });
});

describe("OtelExporter options", () => {
  it("rejects unknown keys, a bad projection and a bad markProjection", () => {
    expect(otel({ projection: "full", endPoint: "http://127.0.0.1:4318/v1/traces" })).toThrow(
      /unknown option "endPoint" \(did you mean "endpoint"\?\)/,
    );
    expect(otel({ projection: "openInference" })).toThrow(
      /projection must be one of "full", "openinference", "gen_ai" \(got "openInference"\)/,
    );
    expect(otel({})).toThrow(/projection must be one of "full", "openinference", "gen_ai"$/);
    expect(otel({ projection: "full", markProjection: "span" })).toThrow(/markProjection must be one of "inherit", "event", "tool"/);
  });

  it("names the option, what it must be and what it got, for top-level and nested signal options alike", () => {
    expect(otel({ projection: "full", maxQueueSize: 0 })).toThrow(/OtelExporter: maxQueueSize must be a finite number >= 1 \(got 0\)/);
    expect(otel({ projection: "full", headers: { "x-key": 7 } })).toThrow(/OtelExporter: headers must be an object of strings/);
    expect(otel({ projection: "full", captureContent: "yes" })).toThrow(/captureContent must be a boolean \(got "yes"\)/);
    expect(otel({ projection: "full", spanExporter: {} })).toThrow(/spanExporter must be an OpenTelemetry SpanExporter/);
    expect(otel({ projection: "full", metrics: { exportIntervalMillis: 0 } })).toThrow(
      /metrics\.exportIntervalMillis must be a finite number >= 1 \(got 0\)/,
    );
    expect(otel({ projection: "full", logs: { headers: [] } })).toThrow(/logs\.headers must be an object of strings/);
    expect(otel({ projection: "full", logs: "on" })).toThrow(/logs must be a boolean or /);
    expect(atof({ type: "file", maxBufferedLines: -1 })).toThrow(/AtofExporter: maxBufferedLines must be a finite number >= 0 \(got -1\)/);
    expect(atif({ agent: { name: "calc", version: "1" }, includeMarks: 1 })).toThrow(
      /AtifExporter: includeMarks must be a boolean \(got 1\)/,
    );
  });

  it("rejects an endpoint that is not an absolute http(s) URL", () => {
    // `localhost:4318` parses as a URL whose protocol is `localhost:`.
    expect(otel({ projection: "full", endpoint: "localhost:4318" })).toThrow(TypeError);
    expect(otel({ projection: "full", endpoint: "localhost:4318" })).toThrow(
      /endpoint "localhost:4318" must be an http or https URL.*did you mean "http:\/\/localhost:4318"/,
    );
    expect(otel({ projection: "full", endpoint: "/v1/traces" })).toThrow(/endpoint/);
  });

  it("sends to /v1/traces when given a bare collector URL, with or without a trailing slash", async () => {
    const { base, paths } = await collector();
    for (const endpoint of [base, `${base}/`]) {
      const runtime = createRuntime();
      const exporter = new OtelExporter({ projection: "openinference", endpoint, timeoutMillis: 2000 });
      exporter.register(runtime);
      await runAgent(runtime);
      await exporter.forceFlush();
      await runtime.shutdown();
    }
    expect(paths).toHaveLength(2);
    expect(paths).toEqual(["/v1/traces", "/v1/traces"]);
  });

  it("keeps an endpoint that has a path as given", async () => {
    const { base, paths } = await collector();
    const runtime = createRuntime();
    const exporter = new OtelExporter({ projection: "full", endpoint: `${base}/custom/traces`, timeoutMillis: 2000 });
    exporter.register(runtime);
    await runAgent(runtime);
    await exporter.forceFlush();
    await runtime.shutdown();
    expect(paths).toEqual(["/custom/traces"]);
  });
});
