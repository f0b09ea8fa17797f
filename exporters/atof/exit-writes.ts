/** Something that can write what it holds, and let go of its file, without waiting for the event loop. */
export interface SyncWriter {
  atExit(): void;
}

const writers = new Set<SyncWriter>();
let hooked = false;
let exiting = false;

/**
 * True once the 'exit' listener has run. Other 'exit' listeners may still deliver events after
 * it (a runtime draining its queue, registered later): the sinks then write each one at once.
 */
export function processExiting(): boolean {
  return exiting;
}

/** `process.exit()` runs only synchronous 'exit' listeners: the file sinks write their buffers and release their claims there. */
function onExit(): void {
  exiting = true;
  for (const writer of writers) {
    try {
      writer.atExit();
    } catch {
      // a sink never throws, and nothing here may keep the process from exiting
    }
  }
}

/** Registers a sink for the exit-time write; returns the removal. */
export function writeOnExit(writer: SyncWriter): () => void {
  if (!hooked) {
    hooked = true;
    process.on("exit", onExit);
  }
  writers.add(writer);
  return () => {
    writers.delete(writer);
  };
}
