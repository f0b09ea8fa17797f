import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit, type ClientOptions } from "../../src/agent/index.js";
import { scriptedProviders } from "../support/scripted-providers.js";

const provider = scriptedProviders();

const KEY_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"] as const;

describe("API key fallback never crosses providers", () => {
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const k of KEY_VARS) {
      saved[k] = process.env[k];
      delete process.env[k];
    }
  });
  afterEach(() => {
    for (const k of KEY_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  async function firstRequestHeaders(style: "openai" | "anthropic", extra: Partial<ClientOptions> = {}) {
    const p = await provider([{ text: "hi" }], style);
    const client = createClient({ baseUrl: p.url, style, model: "m", runtime: createRuntime(), ...extra });
    await client.run("hello", { toolkit: await createToolkit() });
    return p.requests[0]!.headers;
  }

  it("an openai-style client with only ANTHROPIC_API_KEY set sends no authorization header", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-should-stay-home";
    const headers = await firstRequestHeaders("openai");
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain("sk-ant-should-stay-home");
  });

  it("an anthropic-style client with only OPENAI_API_KEY / OPENROUTER_API_KEY set sends no x-api-key", async () => {
    process.env.OPENAI_API_KEY = "sk-openai-should-stay-home";
    process.env.OPENROUTER_API_KEY = "sk-or-should-stay-home";
    const headers = await firstRequestHeaders("anthropic");
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it("openai style: own key first, then OPENROUTER_API_KEY; an explicit apiKey beats both", async () => {
    process.env.OPENROUTER_API_KEY = "sk-or-key";
    expect((await firstRequestHeaders("openai")).authorization).toBe("Bearer sk-or-key");
    process.env.OPENAI_API_KEY = "sk-openai-key";
    expect((await firstRequestHeaders("openai")).authorization).toBe("Bearer sk-openai-key");
    expect((await firstRequestHeaders("openai", { apiKey: "sk-explicit" })).authorization).toBe("Bearer sk-explicit");
  });

  it("anthropic style uses ANTHROPIC_API_KEY", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-key";
    expect((await firstRequestHeaders("anthropic"))["x-api-key"]).toBe("sk-ant-key");
  });
});
