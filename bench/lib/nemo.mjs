// NeMo Relay (`nemo-relay-node`, a native binding) doing the same managed tool call as relaytrace.
// Its registrations and its plugin host are process-wide, so each variant installs its set-up in
// `install` and removes it in `uninstall`, around each of its own rounds only.
import { rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { TOOL_NAME, toolFn } from "./workload.mjs";
import { tempDir } from "./variants.mjs";

const require = createRequire(import.meta.url);

export async function nemoInstalled() {
  try {
    require.resolve("nemo-relay-node");
    return true;
  } catch {
    return false;
  }
}

function loadNemo() {
  return {
    relay: require("nemo-relay-node"),
    plugin: require("nemo-relay-node/plugin"),
    observability: require("nemo-relay-node/observability"),
  };
}

function managedCall(relay) {
  return (args) => relay.toolCallExecuteAsync(TOOL_NAME, args, toolFn, null, null, null, null, "call_1");
}

/** A variant around one plugin-host activation of NeMo's observability component. */
function withObservability(nemo, componentConfig, cleanup) {
  let activation;
  return {
    call: managedCall(nemo.relay),
    install: async () => {
      const config = nemo.plugin.defaultConfig();
      config.components = [nemo.observability.ComponentSpec({ version: 4, ...componentConfig })];
      activation = await nemo.plugin.initialize(config);
      const diagnostics = activation.report?.config?.diagnostics ?? [];
      if (diagnostics.length) throw new Error(`NeMo Relay rejected the config: ${JSON.stringify(diagnostics)}`);
    },
    uninstall: async () => {
      await nemo.relay.flushSubscribers();
      await activation.close();
    },
    close: cleanup,
  };
}

export const nemoFactories = {
  none: async () => {
    const { relay } = loadNemo();
    return { call: managedCall(relay), install: () => {}, uninstall: () => {}, close: () => {} };
  },
  /** One pass-through execution intercept, one request sanitizer, one no-op subscriber (as relaytrace's variant). */
  interceptSanitizer: async () => {
    const { relay } = loadNemo();
    return {
      call: managedCall(relay),
      install: () => {
        relay.registerToolExecutionIntercept("pass", 10, (context, next) => next(context.args));
        relay.registerToolSanitizeRequestGuardrail("redact", 10, (_tool, args) =>
          args && typeof args === "object" && !Array.isArray(args) ? { ...args, city: "[redacted]" } : args,
        );
        relay.registerSubscriber("noop", () => {});
      },
      uninstall: async () => {
        await relay.flushSubscribers();
        relay.deregisterToolExecutionIntercept("pass");
        relay.deregisterToolSanitizeRequestGuardrail("redact");
        relay.deregisterSubscriber("noop");
      },
      close: () => {},
    };
  },
  /** NeMo's ATOF JSONL file sink into a temporary directory. */
  atofFile: async () => {
    const nemo = loadNemo();
    const dir = await tempDir("nemo-relay-bench-");
    const atof = nemo.observability.atofConfig({
      enabled: true,
      sinks: [{ type: "file", output_directory: dir, filename: "events.jsonl", mode: "overwrite" }],
    });
    return withObservability(nemo, { atof }, () => rm(dir, { recursive: true, force: true }));
  },
  /** NeMo's OTel openinference projection, OTLP/HTTP protobuf to a loopback receiver at `url`. */
  otlpOpeninference: async (url) => {
    const nemo = loadNemo();
    const opentelemetry = nemo.observability.openTelemetryConfig({
      enabled: true,
      endpoints: [
        nemo.observability.openTelemetryEndpoint({
          type: "openinference",
          endpoint: url,
          transport: "http_binary",
          scheduled_delay_millis: 200,
        }),
      ],
    });
    return withObservability(nemo, { opentelemetry }, () => {});
  },
};
