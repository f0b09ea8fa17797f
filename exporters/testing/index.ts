export { createTestClock, DEFAULT_TEST_START_US } from "./clock.js";
export type { TestClock } from "./clock.js";
export { createSequentialIds } from "./ids.js";
export { EventCapture } from "./event-capture.js";
export { SpanCapture } from "./span-capture.js";
export type { SpanCaptureOptions } from "./span-capture.js";
export { RecordingSpanExporter } from "./recording-span-exporter.js";
export { toSnapshot } from "./snapshot.js";
export type { SnapshotOptions, SnapshotTimes, SnapshotValue, SpanSnapshot, TraceSnapshot } from "./snapshot.js";
export { toTree, DEFAULT_TREE_ATTRIBUTES } from "./tree.js";
export type { TreeOptions } from "./tree.js";
export { startScriptedProvider } from "./scripted-provider.js";
export type { ScriptedProvider, ScriptedProviderOptions, ScriptedTurn, RecordedProviderRequest } from "./scripted-provider.js";
// Record and replay: a model server answering a recording's calls, and its recorded tools. They
// live in src/replay, which reads events and wire bodies only (its tools spell out the loop's
// tool shape rather than import the loop); `relaytrace/testing` is where a test finds them.
export { startReplayServer, replayTools, ReplayRecordingError } from "../../src/replay/index.js";
export type { ReplayServer, ReplayServerOptions, ReplayMismatch, ReplayTool, ReplayToolResult } from "../../src/replay/index.js";
