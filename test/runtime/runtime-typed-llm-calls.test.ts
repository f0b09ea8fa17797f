import { describe, expect, it } from "vitest";
import { typeCheck } from "../support/type-check.js";

describe("managed LLM calls typed by their callback", () => {
  it("the SDKs' request and reply types pass through executeLlm, executeLlmStream and the wrappers under tsc --strict (test/types)", async () => {
    const out = await typeCheck(["test/types/typed-llm-calls.check.ts"], {
      relaytrace: ["./src/index.ts"],
      "relaytrace/openai": ["./src/integrations/openai/index.ts"],
      "relaytrace/anthropic": ["./src/integrations/anthropic/index.ts"],
      "relaytrace/google-genai": ["./src/integrations/google-genai/index.ts"],
    });
    expect(out).toBe("");
  }, 120_000);
});
