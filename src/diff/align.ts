import { canonicalJson } from "../events/canonical-json.js";
import { textHash } from "../events/text-hash.js";
import type { RunStep } from "./steps.js";

/**
 * Steps of two runs lined up, so an extra or a missing model call is one step only one run has,
 * not a shift of every later step. Both runs are read ahead by a bounded window (at most
 * `ALIGN_WINDOW_STEPS` steps and about `ALIGN_WINDOW_CHARS` characters of step content per run):
 * heads that say the same are paired at once; else the nearest pair of steps that say the same
 * within the windows (the smallest i + j) is an anchor, and the steps before it are lined up by a
 * looser key (status and tool names), the rest paired in order or left to one run. Time is linear
 * in the steps times the window; memory is the two windows. An insertion longer than the window
 * is seen as changed steps, not as an insertion.
 */
export const ALIGN_WINDOW_STEPS = 64;
export const ALIGN_WINDOW_CHARS = 4 * 1024 * 1024;

/** A pair of lined-up steps; one side is undefined for a step only one run has. */
export type StepPair = [RunStep | undefined, RunStep | undefined];

interface Held {
  step: RunStep;
  /** what the step says: status, reply text, tool names and arguments (hashed) */
  strong: string;
  /** the step's shape: status and tool names */
  weak: string;
  size: number;
}

function held(step: RunStep): Held {
  const status = step.model === null ? "(before any model call)" : step.model.status;
  const names = step.tools.map((t) => t.name);
  const args = step.tools.map((t) => canonicalJson(t.args));
  const text = step.model?.text ?? "";
  let size = text.length;
  for (const a of args) size += a.length;
  for (const t of step.tools) size += t.result === undefined ? 0 : canonicalJson(t.result).length;
  const weak = JSON.stringify([status, names]);
  return { step, weak, strong: textHash(JSON.stringify([status, text, names, args])), size };
}

/**
 * The steps of two gaps (no step of one says the same as a step of the other) lined up by their
 * weak keys (longest common subsequence, iterative), each stretch between two such matches
 * paired in order: a changed step, rather than one removed and one added.
 */
function alignGap(a: readonly Held[], b: readonly Held[]): StepPair[] {
  const n = a.length;
  const m = b.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[at(i, j)] = a[i]!.weak === b[j]!.weak ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
  const out: StepPair[] = [];
  let onlyA: RunStep[] = [];
  let onlyB: RunStep[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(onlyA.length, onlyB.length); k++) out.push([onlyA[k], onlyB[k]]);
    onlyA = [];
    onlyB = [];
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i]!.weak === b[j]!.weak && lcs[at(i, j)] === lcs[at(i + 1, j + 1)]! + 1) {
      flush();
      out.push([a[i++]!.step, b[j++]!.step]);
    } else if (j >= m || (i < n && lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!)) onlyA.push(a[i++]!.step);
    else onlyB.push(b[j++]!.step);
  }
  flush();
  return out;
}

/** Lines up two runs' steps as they are pushed: see the module comment. */
export class StepAligner {
  private readonly a: Held[] = [];
  private readonly b: Held[] = [];
  private readonly size = { a: 0, b: 0 };
  private readonly ended = { a: false, b: false };

  constructor(
    private readonly windowSteps = ALIGN_WINDOW_STEPS,
    private readonly windowChars = ALIGN_WINDOW_CHARS,
  ) {}

  private list(side: "a" | "b"): Held[] {
    return side === "a" ? this.a : this.b;
  }

  /** Whether `side` takes another step before the aligner can decide: its window has room and its run goes on. */
  wants(side: "a" | "b"): boolean {
    return !this.ended[side] && this.list(side).length < this.windowSteps && this.size[side] < this.windowChars;
  }

  push(side: "a" | "b", step: RunStep): void {
    const h = held(step);
    this.list(side).push(h);
    this.size[side] += h.size;
  }

  end(side: "a" | "b"): void {
    this.ended[side] = true;
  }

  /** Both runs ended and every step was handed out. */
  get done(): boolean {
    return this.ended.a && this.ended.b && this.a.length === 0 && this.b.length === 0;
  }

  private take(side: "a" | "b", count: number): Held[] {
    const taken = this.list(side).splice(0, count);
    for (const h of taken) this.size[side] -= h.size;
    return taken;
  }

  /** The nearest pair of steps, one of each window, that say the same: smallest i + j, then the smaller |i - j|. */
  private anchor(): [number, number] | undefined {
    const firstInB = new Map<string, number>();
    this.b.forEach((h, j) => {
      if (!firstInB.has(h.strong)) firstInB.set(h.strong, j);
    });
    let best: [number, number] | undefined;
    this.a.forEach((h, i) => {
      const j = firstInB.get(h.strong);
      if (j === undefined) return;
      if (best === undefined || i + j < best[0] + best[1] || (i + j === best[0] + best[1] && Math.abs(i - j) < Math.abs(best[0] - best[1])))
        best = [i, j];
    });
    return best;
  }

  /** The pairs that can be decided now (each step once); none until both windows are full or their runs ended. */
  *pairs(): Generator<StepPair> {
    while (!this.wants("a") && !this.wants("b") && (this.a.length > 0 || this.b.length > 0)) {
      if (this.a.length === 0 || this.b.length === 0) {
        yield [this.take("a", 1)[0]?.step, this.take("b", 1)[0]?.step];
        continue;
      }
      const [i, j] = this.a[0]!.strong === this.b[0]!.strong ? [0, 0] : (this.anchor() ?? [1, 1]);
      if (i === 0 && j === 0) yield [this.take("a", 1)[0]!.step, this.take("b", 1)[0]!.step];
      else yield* alignGap(this.take("a", i), this.take("b", j));
    }
  }
}

/** The lined-up steps of two step streams, read one step at a time (first A, then B), in bounded memory. */
export async function* alignStepStreams(a: AsyncIterator<RunStep>, b: AsyncIterator<RunStep>): AsyncGenerator<StepPair> {
  const aligner = new StepAligner();
  while (!aligner.done) {
    // One after the other, not at once: a read error from either file surfaces as itself.
    while (aligner.wants("a")) {
      const x = await a.next();
      if (x.done) aligner.end("a");
      else aligner.push("a", x.value);
    }
    while (aligner.wants("b")) {
      const y = await b.next();
      if (y.done) aligner.end("b");
      else aligner.push("b", y.value);
    }
    yield* aligner.pairs();
  }
}

/** The lined-up steps of two arrays of steps. */
export function alignSteps(a: readonly RunStep[], b: readonly RunStep[]): StepPair[] {
  const aligner = new StepAligner();
  const out: StepPair[] = [];
  let i = 0;
  let j = 0;
  while (!aligner.done) {
    while (aligner.wants("a")) {
      if (i < a.length) aligner.push("a", a[i++]!);
      else aligner.end("a");
    }
    while (aligner.wants("b")) {
      if (j < b.length) aligner.push("b", b[j++]!);
      else aligner.end("b");
    }
    out.push(...aligner.pairs());
  }
  return out;
}
