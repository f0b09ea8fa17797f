import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atofToAtif } from "../../exporters/atif/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { createClient, createToolkit } from "../../src/agent/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { checkPricingCatalog, costOf, priceEntryFor } from "../../src/wire/index.js";
import type { PricingCatalog } from "../../src/wire/index.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { scriptedProviders } from "../support/scripted-providers.js";

const provider = scriptedProviders();

// USD per million tokens; made-up rates so the arithmetic is easy to check by hand.
const catalog: PricingCatalog = {
  entries: [
    {
      model: "claude-x",
      inputPerMTok: 3,
      outputPerMTok: 15,
      cacheReadPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      pricingAsOf: "2026-11-01",
      pricingSource: "test catalog",
    },
    { model: "gpt-x", inputPerMTok: 2, outputPerMTok: 8, pricingAsOf: "2026-11-01", pricingSource: "test catalog" },
  ],
};

// 1,000,000 input tokens of which 400,000 cache reads; 100,000 output tokens:
// 600,000 × $3 + 400,000 × $0.30 + 100,000 × $15 = $1.80 + $0.12 + $1.50 = $3.42.
const TURN = { text: "done", usage: { promptTokens: 1_000_000, completionTokens: 100_000, cachedTokens: 400_000 } };

async function pricedRun(pricing: PricingCatalog | string, model = "claude-x") {
  const srv = await provider([TURN], "anthropic");
  const { rt, settle } = capturingRuntime({ pricing });
  const full = new SpanCapture({ projection: "full" });
  const oi = new SpanCapture({ projection: "openinference" });
  full.register(rt);
  oi.register(rt);
  const client = createClient({ baseUrl: srv.url, style: "anthropic", model, apiKey: "k", runtime: rt });
  await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
  const events = await settle();
  const end = scopes(events).find((e): e is ScopeEvent => e.category === "llm" && e.scope_category === "end")!;
  const fullLlm = (await full.spans()).find((s) => s.name === "anthropic.messages")!.attributes;
  const oiLlm = (await oi.spans()).find((s) => s.name === "anthropic.messages")!.attributes;
  return { events, end, fullLlm, oiLlm };
}

describe("createRuntime({ pricing })", () => {
  it("puts the cost computed from the codec's usage on the llm end, and every exporter shows it", async () => {
    const { events, end, fullLlm, oiLlm } = await pricedRun(catalog);
    expect(end.category_profile).toMatchObject({
      cost: {
        total: 3.42,
        currency: "USD",
        input: 1.92,
        output: 1.5,
        cache_read: 0.12,
        model: "claude-x",
        pricing_as_of: "2026-11-01",
        pricing_source: "test catalog",
      },
    });
    expect(fullLlm["nemo_relay.llm.cost.total"]).toBe(3.42);
    expect(fullLlm["nemo_relay.llm.cost.currency"]).toBe("USD");
    expect(oiLlm["llm.cost.total"]).toBe(3.42);
    expect(oiLlm["llm.cost.prompt"]).toBe(1.92);
    expect(oiLlm["llm.cost.completion"]).toBe(1.5);
    expect(oiLlm["llm.cost.prompt_details.cache_read"]).toBe(0.12);
    const [doc] = atofToAtif(events, { agent: { name: "a", version: "1" } });
    expect(doc!.steps.find((s) => s.source === "agent")!.metrics?.cost_usd).toBe(3.42);
    expect(doc!.final_metrics?.total_cost_usd).toBe(3.42);
  });

  it("reads the catalog from a JSON file path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relaytrace-pricing-"));
    const path = join(dir, "prices.json");
    writeFileSync(path, JSON.stringify(catalog));
    const { end } = await pricedRun(path);
    expect((end.category_profile as { cost: { total: number } }).cost.total).toBe(3.42);
  });

  it("leaves a model neither the catalog nor the bundled table prices without a cost: nothing is invented", async () => {
    const unpriced = await pricedRun(catalog, "other-model");
    expect(unpriced.end.category_profile).not.toHaveProperty("cost");
    expect(unpriced.fullLlm["nemo_relay.llm.cost.total"]).toBeUndefined();
    expect(unpriced.oiLlm["llm.cost.total"]).toBeUndefined();
  });

  it("counts a call whose model neither the catalog nor the table prices (no cost is better than a wrong one)", async () => {
    const srv = await provider([TURN, TURN], "anthropic");
    const rt = createRuntime({ pricing: catalog });
    rt.subscribe("listener", () => undefined);
    // The reply names its own model (the scripted provider says "scripted-model"): that is the one priced.
    const client = createClient({ baseUrl: srv.url, style: "anthropic", model: "claude-x-mini", apiKey: "k", runtime: rt });
    await client.run("hi", { toolkit: await createToolkit({ tools: [] }) });
    await client.run("again", { toolkit: await createToolkit({ tools: [] }) });
    const unpriced = rt.diagnostics().find((d) => d.code === "llm.unpriced_model");
    expect(unpriced?.count).toBe(2);
    expect(unpriced?.message).toContain("no price for model scripted-model");
    await rt.shutdown();
  });

  it("rejects a malformed catalog or an unreadable file with an error naming the entry and field", () => {
    expect(() =>
      createRuntime({ pricing: { entries: [{ model: "m", inputPerMTok: -1, outputPerMTok: 1, pricingAsOf: "x", pricingSource: "y" }] } }),
    ).toThrow("pricing.entries[0].inputPerMTok must be a non-negative number of USD per million tokens");
    expect(() => createRuntime({ pricing: { entries: [{ model: "m", inputPerMTok: 1, outputPerMTok: 1, pricingAsOf: "" }] } })).toThrow(
      "pricing.entries[0].pricingAsOf must be a non-empty string when given",
    );
    expect(() =>
      createRuntime({
        pricing: {
          entries: [{ model: "m", inputPerMTok: 1, outputPerMTok: 1, pricingAsOf: "x", pricingSource: "y", currency: "EUR" }],
        } as never,
      }),
    ).toThrow('unknown key "currency"');
    expect(() => createRuntime({ pricing: "/nonexistent/prices.json" })).toThrow("pricing: cannot read /nonexistent/prices.json");
  });
});

describe("pricing arithmetic", () => {
  const checked = checkPricingCatalog(catalog);
  it("matches a dated model variant to its entry, exact ids first", () => {
    expect(priceEntryFor(checked, "gpt-x-2026-10-01")?.model).toBe("gpt-x");
    expect(priceEntryFor(checked, "claude-x-20261022")?.model).toBe("claude-x");
    expect(priceEntryFor(checked, "claude-x@20261022")?.model).toBe("claude-x");
    expect(priceEntryFor(checked, "gpt-xl")).toBeUndefined();
  });
  it("never prices a longer model name at a shorter one's rates", () => {
    const real = checkPricingCatalog({
      entries: [
        { model: "gpt-4o", inputPerMTok: 2.5, outputPerMTok: 10, pricingAsOf: "2026-11-01", pricingSource: "t" },
        { model: "o1", inputPerMTok: 15, outputPerMTok: 60, pricingAsOf: "2026-11-01", pricingSource: "t" },
      ],
    });
    expect(priceEntryFor(real, "gpt-4o-mini")).toBeUndefined();
    expect(priceEntryFor(real, "gpt-4o-mini-2024-07-18")).toBeUndefined();
    expect(priceEntryFor(real, "o1-pro")).toBeUndefined();
    expect(priceEntryFor(real, "gpt-4o-2024-08-06")?.model).toBe("gpt-4o");
    expect(priceEntryFor(real, "o1")?.model).toBe("o1");
  });
  it("prices cache reads at the input rate when the entry has no cache rate", () => {
    const cost = costOf(priceEntryFor(checked, "gpt-x")!, { inputTokens: 1_000_000, cacheReadTokens: 500_000, outputTokens: 0 });
    expect(cost).toMatchObject({ total: 2, input: 2, output: 0, cacheRead: 1 });
  });
});
