// relaytrace/register on SIGTERM and SIGINT: what the exporters hold is delivered, and the process
// ends as Node's default would, unless the app handles the signal itself. The child prints `ready`
// once its run is recorded and it is waiting; only then is the signal sent.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { waitForOutput } from "../support/child-process.js";
import { spansOf, startOtlpReceiver, attributesOf, type OtlpReceiver } from "../support/otlp.js";
import { makeRegisterApp, RECORDING_APP, type RegisterApp } from "../support/register-app.js";

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

function spanNamesFrom(serviceName: string): string[] {
  return receiver.received
    .filter((r) => r.signal === "traces")
    .flatMap((r) => {
      const resources = (r.body as { resourceSpans?: { resource?: { attributes?: unknown[] } }[] }).resourceSpans ?? [];
      return resources.some((rs) => attributesOf(rs.resource?.attributes)["service.name"] === serviceName) ? spansOf(r.body) : [];
    })
    .map((s) => String(s["name"]))
    .sort();
}

/** Starts the waiting app with an OtelExporter whose batch would otherwise wait a minute. */
async function waitingApp(args: string[]) {
  const service = `svc-signal-${++run}`;
  const child = app.start(
    "app.mjs",
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: service, OTEL_BSP_SCHEDULE_DELAY: "60000" },
    ["wait", ...args],
  );
  await waitForOutput(child, "ready");
  const result = async () => ({ ...(await child.exited), stdout: child.stdout(), stderr: child.stderr(), spans: spanNamesFrom(service) });
  return { child, service, result };
}

describe("relaytrace/register on a signal", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s without an app handler: the spans are sent, then the process ends by the signal",
    async (signal) => {
      const { child, result: exited } = await waitingApp([]);
      child.process.kill(signal);
      const result = await exited();
      expect(result.spans).toEqual(["chat", "lookup", "support-run"]);
      expect(result).toMatchObject({ code: null, signal, stderr: "" });
    },
  );

  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s with the app's own handler: the spans are sent, the process lives on and keeps recording",
    async (signal) => {
      const { child, service, result: exited } = await waitingApp(["own-handler"]);
      child.process.kill(signal);
      await waitForOutput(child, `app handler ${signal}`);
      // the flush, not the one-minute batch delay, delivers them
      await vi.waitFor(() => expect(spanNamesFrom(service)).toEqual(["chat", "lookup", "support-run"]), { timeout: 15_000 });
      child.process.kill(signal); // the app's handler now records once more and lets the process end
      const result = await exited();
      expect(result.spans).toEqual(["after-signal", "chat", "lookup", "support-run"]);
      // the app's handler let the event loop run dry: a normal exit, not death by the signal
      expect(result).toMatchObject({ code: 0, signal: null, stderr: "" });
    },
  );
});
