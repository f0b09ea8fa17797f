// Type check (tsc, no run): the integration is an `ai` 7 `Telemetry`, for `registerTelemetry` and
// for one call's `telemetry: { integrations }`, though relaytrace is built against `ai` 6's types.
import { generateText, registerTelemetry, streamText, ToolLoopAgent, type LanguageModel, type Telemetry } from "ai7";
import { relaytraceTelemetry } from "relaytrace/ai-sdk";

declare const model: LanguageModel;

export const integration: Telemetry = relaytraceTelemetry({ captureContent: false, name: "agent" });
registerTelemetry(relaytraceTelemetry());
void generateText({ model, prompt: "hi", telemetry: { integrations: [relaytraceTelemetry()] } });
void streamText({ model, prompt: "hi", telemetry: { integrations: relaytraceTelemetry() } });
void new ToolLoopAgent({ model, telemetry: { integrations: [relaytraceTelemetry()] } });
