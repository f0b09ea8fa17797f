// PII redaction with one sanitizer: `redactPII` is registered once on the runtime, so every
// exporter downstream — ATOF file, ATIF trajectory, OpenTelemetry spans of all three
// projections — receives the redacted events. The application itself is untouched: the model
// reply, the tool arguments and the result still carry the real email and card number.
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit, defineTool, redactPII } from "relaytrace";
import type { RedactionMode, RunResult } from "relaytrace";
import { AtifExporter, AtofExporter } from "relaytrace/exporters";
import type { ProjectionName } from "relaytrace/exporters";
import { SpanCapture, startScriptedProvider } from "relaytrace/testing";

export const EMAIL = "ada@example.com";
export const CARD = "4111 1111 1111 1111"; // a Luhn-valid test card number

export interface PiiRedactionResult {
  result: RunResult;
  /** What the tool itself was called with. */
  toolSaw: Record<string, unknown>;
  atofText: string;
  atifText: string;
  /** Span names, attributes and span events, as JSON, per projection. */
  spansText: Record<ProjectionName, string>;
}

export async function main(options: { mode?: RedactionMode } = {}): Promise<PiiRedactionResult> {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-pii-"));
  const model = await startScriptedProvider({
    turns: [
      { toolCalls: [{ id: "call_1", name: "refund", arguments: { email: EMAIL, card: CARD, amount: 20 } }] },
      { text: `Refunded 20 EUR to card ${CARD}; a receipt went to ${EMAIL}.` },
    ],
  });
  const runtime = createRuntime();
  // Registered once, before the exporters see anything: it rewrites data, metadata and profiles.
  redactPII({ mode: options.mode ?? "mask" }).register(runtime);

  const atof = new AtofExporter({ type: "file", outputDirectory: dir, path: "events.jsonl" });
  const atif = new AtifExporter({ agent: { name: "billing-agent", version: "1.0.0", modelName: "stub" } });
  atof.register(runtime);
  atif.register(runtime);
  const captures = {
    full: new SpanCapture({ projection: "full" }),
    openinference: new SpanCapture({ projection: "openinference" }),
    gen_ai: new SpanCapture({ projection: "gen_ai" }),
  };
  for (const capture of Object.values(captures)) capture.register(runtime);

  try {
    let toolSaw: Record<string, unknown> = {};
    const refund = defineTool({
      name: "refund",
      description: "Refund a card payment and email a receipt",
      inputSchema: { type: "object", properties: { email: { type: "string" }, card: { type: "string" }, amount: { type: "number" } } },
      execute: (args) => {
        toolSaw = args;
        return `refund of ${String(args.amount)} EUR to ${String(args.card)} done; receipt sent to ${String(args.email)}`;
      },
    });
    const toolkit = await createToolkit({ builtins: false, tools: [refund] });
    const client = createClient({ baseUrl: model.url, style: "openai", model: "stub", apiKey: "k", agentName: "billing-agent", runtime });
    const result = await client.run(`Please refund my last payment, card ${CARD}, email ${EMAIL}.`, { toolkit });
    await runtime.shutdown();

    const spansText = {} as Record<ProjectionName, string>;
    for (const [name, capture] of Object.entries(captures) as [ProjectionName, SpanCapture][]) {
      spansText[name] = JSON.stringify(
        (await capture.spans()).map((s) => ({ name: s.name, attributes: s.attributes, events: s.events.map((e) => e.attributes) })),
      );
    }
    const atofText = await readFile(join(dir, "events.jsonl"), "utf8");
    const atifText = JSON.stringify(atif.toJSON());

    console.log(`the app saw:      ${result.text}`);
    console.log(`the tool got:     card=${String(toolSaw.card)} email=${String(toolSaw.email)}`);
    const leaks = [atofText, atifText, ...Object.values(spansText)].filter((t) => t.includes(EMAIL) || t.includes(CARD)).length;
    console.log(`telemetry leaks:  ${leaks} (ATOF, ATIF and ${Object.keys(spansText).length} span projections checked)`);
    console.log(
      `ATOF now says:    ${
        atofText
          .match(/\[REDACTED:[a-z_]+\]/g)
          ?.slice(0, 2)
          .join(", ") ?? "(no masks)"
      } …`,
    );
    return { result, toolSaw, atofText, atifText, spansText };
  } finally {
    await runtime.shutdown();
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
