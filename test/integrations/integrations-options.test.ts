// Every integration's options are checked like the runtime's: an unknown key or a value of the
// wrong type is a TypeError naming the option, what it must be and what it got, before anything
// is traced — a flag read from the environment (`"false"`) must not switch content capture on.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { jsonSchema, tool } from "ai";
import { describe, expect, it } from "vitest";
import { createRuntime } from "relaytrace";
import { relaytraceMiddleware, relaytraceTelemetry, traceAgent, traceTools } from "relaytrace/ai-sdk";
import { RelaytraceCallbackHandler } from "relaytrace/langchain";
import { RelaytraceExporter } from "relaytrace/mastra";
import { mcpTools, traceMcpClient } from "relaytrace/mcp";
import { RelaytraceProcessor } from "relaytrace/openai-agents";

/** Options a JavaScript caller (or a cast) can pass; the types forbid them. */
const bad = <T>(options: Record<string, unknown>) => options as unknown as T;

const mcpClient = () => new Client({ name: "options-test", version: "1.0.0" });

describe("integration options", () => {
  it("relaytraceTelemetry: a string flag, a misspelt key or a runtime that is not one", () => {
    type Options = Parameters<typeof relaytraceTelemetry>[0];
    expect(() => relaytraceTelemetry(bad<Options>({ captureContent: "false" }))).toThrow(
      new TypeError('relaytraceTelemetry: captureContent must be a boolean (got "false")'),
    );
    expect(() => relaytraceTelemetry(bad<Options>({ captureContents: false }))).toThrow(
      'relaytraceTelemetry: unknown option "captureContents" (did you mean "captureContent"?)',
    );
    expect(() => relaytraceTelemetry(bad<Options>({ runtime: {} }))).toThrow(
      "relaytraceTelemetry: runtime must be a Runtime (from createRuntime()) (got an object)",
    );
    expect(() => relaytraceTelemetry(bad<Options>({ maxOpenRuns: 0 }))).toThrow(
      "relaytraceTelemetry: maxOpenRuns must be a positive integer (got 0)",
    );
    expect(() => relaytraceTelemetry({ runtime: createRuntime(), name: "agent", captureContent: false, maxOpenRuns: 5 })).not.toThrow();
  });

  it("relaytraceMiddleware, traceTools and traceAgent (ai 6)", async () => {
    const runtime = createRuntime();
    expect(() => relaytraceMiddleware(bad({ runtim: runtime }))).toThrow(
      new TypeError('relaytraceMiddleware: unknown option "runtim" (did you mean "runtime"?)'),
    );
    const tools = {
      echo: tool({ inputSchema: jsonSchema<{ text: string }>({ type: "object" }), execute: async ({ text }) => text }),
    };
    expect(() => traceTools(tools, bad({ runtime: "default" }))).toThrow(
      'traceTools: runtime must be a Runtime (from createRuntime()) (got "default")',
    );
    let ran = false;
    await expect(traceAgent("agent", () => (ran = true), bad({ runtime, inputs: "hi" }))).rejects.toThrow(
      'traceAgent: unknown option "inputs" (did you mean "input"?)',
    );
    expect(ran).toBe(false);
  });

  it("RelaytraceExporter (Mastra): a bound that is not a number no longer removes the bound", () => {
    expect(() => new RelaytraceExporter(bad({ maxOpenSpans: "lots" }))).toThrow(
      new TypeError('RelaytraceExporter: maxOpenSpans must be a positive integer (got "lots")'),
    );
    expect(() => new RelaytraceExporter(bad({ maxEndedSpans: 2.5 }))).toThrow(
      "RelaytraceExporter: maxEndedSpans must be a positive integer (got 2.5)",
    );
    expect(() => new RelaytraceExporter(bad({ nam: "relaytrace" }))).toThrow(
      'RelaytraceExporter: unknown option "nam" (did you mean "name"?)',
    );
  });

  it("traceMcpClient and mcpTools, before the client is touched", async () => {
    expect(() => traceMcpClient(mcpClient(), bad({ runtme: createRuntime() }))).toThrow(
      new TypeError('traceMcpClient: unknown option "runtme" (did you mean "runtime"?)'),
    );
    // The client is not connected: a listing would fail otherwise, the options are refused first.
    await expect(mcpTools(mcpClient(), bad({ prefx: "github_" }))).rejects.toThrow(
      new TypeError('mcpTools: unknown option "prefx" (did you mean "prefix"?)'),
    );
    await expect(mcpTools(mcpClient(), bad({ prefix: 7 }))).rejects.toThrow("mcpTools: prefix must be a string (got 7)");
  });

  it("RelaytraceProcessor (OpenAI Agents) and RelaytraceCallbackHandler (LangChain)", () => {
    expect(() => new RelaytraceProcessor(bad({ runtime: "default" }))).toThrow(
      new TypeError('RelaytraceProcessor: runtime must be a Runtime (from createRuntime()) (got "default")'),
    );
    expect(() => new RelaytraceCallbackHandler(bad({ run_time: createRuntime() }))).toThrow(
      new TypeError('RelaytraceCallbackHandler: unknown option "run_time" (did you mean "runtime"?)'),
    );
    expect(() => new RelaytraceCallbackHandler({ runtime: createRuntime() })).not.toThrow();
  });
});
