/**
 * The first SIGINT or SIGTERM, handled, so a command that serves until stopped ends with its own
 * exit status, not by the signal. Listen before printing the line a caller waits for: it may
 * send the signal as soon as it reads it.
 */
export function nextStopSignal(): { signal: Promise<NodeJS.Signals>; cancel(): void } {
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  const remove = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    stop = (name) => {
      remove();
      resolve(name);
    };
  });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return { signal, cancel: remove };
}
