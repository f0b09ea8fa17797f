import { RelaytraceError } from "./errors.js";
import { drainOnExit, flushOnExit, type ExitFlushTarget } from "./exit-flush.js";
import type { Exporter } from "./exporter.js";
import { SHUTDOWN_OPTIONS, SUBSCRIBE_OPTIONS } from "./options.js";
import type { RuntimeCore } from "./runtime-core.js";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, withinDeadline } from "./shutdown.js";
import type { Diagnostic, Remover, ShutdownOptions, Subscriber, SubscribeOptions } from "./types.js";

/**
 * A runtime's life after events are emitted: its subscribers and the exporters attached with
 * them, the flush and shutdown barriers that reach those exporters, the flush on exit, and the
 * diagnostics gathered from all of them. `Runtime` delegates its methods of the same names here.
 */
export class RuntimeLifecycle {
  private readonly exporters = new Set<Exporter>();
  private shutdownPromise: Promise<void> | undefined;
  private stopExitFlush: (() => void) | undefined;
  private drainsOnExit = false;
  /** Events emitted when the last exit flush started: a second `beforeExit` with nothing new does nothing. */
  private exitFlushedAt = -1;

  /** `exitTarget` is the runtime itself: the exit-flush list holds it weakly, so a dropped runtime is not kept alive. */
  constructor(
    private readonly core: RuntimeCore,
    private readonly exitTarget: ExitFlushTarget,
  ) {}

  subscribe(name: string, callback: Subscriber, options: SubscribeOptions = {}): Remover {
    SUBSCRIBE_OPTIONS.check(options, "subscribe");
    const remove = this.core.registries.subscribers.add(name, 0, callback, options.scope ? { scopeUuid: options.scope.uuid } : {});
    if (!this.drainsOnExit) {
      // Events still queued when the process exits reach the subscribers first (a file sink then writes them).
      this.drainsOnExit = true;
      drainOnExit(this.core.publisher);
    }
    const exporter = options.exporter;
    if (exporter) {
      this.exporters.add(exporter);
      this.stopExitFlush ??= flushOnExit(this.exitTarget);
    }
    return () => {
      if (exporter) this.exporters.delete(exporter);
      return remove();
    };
  }

  /** Whether `shutdown()` was called: the exporters are shut down, or are being. */
  get shutDown(): boolean {
    return this.shutdownPromise !== undefined;
  }

  flush(): Promise<void> {
    if (this.core.publisher.callbackDepth > 0) {
      return Promise.reject(new RelaytraceError("invalid_argument", "barrier called from a runtime callback"));
    }
    return this.core.publisher.flush();
  }

  async forceFlush(): Promise<void> {
    await this.flush();
    await Promise.allSettled([...this.exporters].map((e) => e.forceFlush()));
  }

  shutdown(options: ShutdownOptions = {}): Promise<void> {
    if (this.core.publisher.callbackDepth > 0) {
      return Promise.reject(new RelaytraceError("invalid_argument", "barrier called from a runtime callback"));
    }
    let timeoutMs: number;
    try {
      SHUTDOWN_OPTIONS.check(options, "shutdown");
      timeoutMs = options.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    } catch (error) {
      return Promise.reject(error); // a Promise API reports bad input as a rejection
    }
    this.stopExitFlush?.();
    this.shutdownPromise ??= withinDeadline(
      // Traces a sampler still holds are decided and delivered before the exporters shut down.
      () => this.core.publisher.releaseHeld(),
      [...this.exporters],
      async (e) => {
        await e.forceFlush();
        await e.shutdown();
      },
      timeoutMs,
      this.core.diagnostics,
      { timeout: "shutdown_timeout", failed: "exporter_shutdown_failed", verb: "shutdown" },
    );
    return this.shutdownPromise;
  }

  async flushOnExit(): Promise<void> {
    const emitted = this.core.publisher.emittedCount;
    if (this.shutdownPromise !== undefined || emitted === this.exitFlushedAt) return;
    this.exitFlushedAt = emitted;
    await withinDeadline(
      // Nothing is left to end what a sampler still holds: decide it while exporters can still send it.
      () => this.core.publisher.releaseHeld(),
      [...this.exporters],
      (e) => e.forceFlush(),
      DEFAULT_SHUTDOWN_TIMEOUT_MS,
      this.core.diagnostics,
      { timeout: "exit_flush_timeout", failed: "exporter_flush_failed", verb: "flush on exit" },
    );
  }

  diagnostics(): Diagnostic[] {
    const list = this.core.diagnostics.list();
    for (const exporter of this.exporters) {
      try {
        list.push(...exporter.diagnostics());
      } catch {
        // an exporter that cannot report is skipped
      }
    }
    return list;
  }
}
