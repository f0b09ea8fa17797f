export { startReplayServer, serveReplay, checkReplayable, ReplayRecordingError } from "./server.js";
export type { ReplayServer, ReplayServerOptions } from "./server.js";
export type { ReplayMismatch } from "./session.js";
export { replayTools } from "./tools.js";
export type { ReplayTool, ReplayToolResult } from "./tools.js";
export { collectRecording, RecordingCollector } from "./recording.js";
export { collectRecordingFile } from "./recording-file.js";
export type { Recording, RecordedCall, RecordedFailure, RecordingContent, LineRef } from "./recording.js";
