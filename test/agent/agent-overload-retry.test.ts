import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit, ProviderHttpError } from "../../src/agent/index.js";
import { isRetryableStatus } from "../../src/agent/providers/errors.js";
import type { ScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { scriptedProviders } from "../support/scripted-providers.js";

const provider = scriptedProviders();

function header(p: ScriptedProvider, i: number, name: string): string | string[] | undefined {
  return p.requests[i]!.headers[name];
}

describe("529 overloaded is retried like 503", () => {
  it("is classified retryable", () => {
    expect(isRetryableStatus(529)).toBe(true);
    expect(new ProviderHttpError(529, '{"type":"error","error":{"type":"overloaded_error"}}').retryable).toBe(true);
  });

  it("an anthropic run that meets one 529 retries and succeeds", async () => {
    const p = await provider(
      [{ status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }, { text: "after retry" }],
      "anthropic",
    );
    const client = createClient({ baseUrl: p.url, style: "anthropic", model: "m", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1 });
    const res = await client.run("hello", { toolkit: await createToolkit() });
    expect(res).toMatchObject({ status: "done", text: "after retry" });
    expect(p.requests).toHaveLength(2);
    expect(header(p, 1, "x-api-key")).toBe("k");
  });
});
