// A span exporter that keeps what it is given: what an app's own span processor sees. Shared by the
// app programs of this folder (copied into each app's install with them).
export function collectingExporter() {
  const spans = [];
  return {
    spans,
    export(batch, done) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
    forceFlush: async () => {},
  };
}
