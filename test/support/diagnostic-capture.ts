/**
 * Setup file: the lines relaytrace's diagnostic printer writes to this process's stderr
 * (`relaytrace warn: otel.export_failed: …`) are captured here instead of printed. Tests provoke
 * failures on purpose (a collector that is down, a sanitizer that throws, a hostile reply): the
 * runtime counts each one in `diagnostics()`, which is what they assert, and the printer's line
 * for it would only make a green run read like a broken one. `printedDiagnostics()` gives a test
 * the lines captured so far. Child processes are not touched: they print as a user's program
 * does, and test/runtime/diagnostics-log.test.ts pins that.
 */

const PRINTER_LINE = /^relaytrace (?:debug|info|warn|error): /;
const captured: string[] = [];

type Write = typeof process.stderr.write;
const write: Write = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
  if (typeof chunk === "string" && PRINTER_LINE.test(chunk)) {
    captured.push(chunk.replace(/\n$/, ""));
    const done = rest.find((r): r is () => void => typeof r === "function");
    if (done) queueMicrotask(done);
    return true;
  }
  return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
}) as Write;

/** The printer's lines captured in this test file so far, oldest first. */
export function printedDiagnostics(): readonly string[] {
  return captured;
}
