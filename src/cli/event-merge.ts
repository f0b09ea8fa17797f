import type { AtofEvent } from "../events/types.js";

/** An event with its normalized time (µs) and the line it came from. */
export interface TimedRecord {
  event: AtofEvent;
  us: number;
  text: string;
}

interface Head {
  record: TimedRecord;
  source: number;
  rest: AsyncIterator<TimedRecord>;
}

/** Earlier time first; on a tie the earlier source (files in the order given, runs in file order). */
function before(a: Head, b: Head): boolean {
  return a.record.us < b.record.us || (a.record.us === b.record.us && a.source < b.source);
}

/** A binary min-heap of stream heads (k is small: files given plus sort runs). */
class HeadHeap {
  private readonly items: Head[] = [];

  get size(): number {
    return this.items.length;
  }

  push(head: Head): void {
    const items = this.items;
    items.push(head);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Head {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Merges streams that are each in time order into one in time order (a k-way merge): memory is
 * one record per stream. Ties go to the earlier stream, which keeps the order a stable sort of
 * the streams, concatenated, would give.
 */
export async function* mergeByTime(streams: readonly AsyncIterable<TimedRecord>[]): AsyncGenerator<TimedRecord> {
  if (streams.length === 1) {
    yield* streams[0]!;
    return;
  }
  const heap = new HeadHeap();
  const iterators = streams.map((s) => s[Symbol.asyncIterator]());
  try {
    for (const [source, rest] of iterators.entries()) {
      const first = await rest.next();
      if (!first.done) heap.push({ record: first.value, source, rest });
    }
    while (heap.size > 0) {
      const head = heap.pop();
      yield head.record;
      const next = await head.rest.next();
      if (!next.done) heap.push({ record: next.value, source: head.source, rest: head.rest });
    }
  } finally {
    // Stopped early (an error downstream): close every stream so its file is released.
    await Promise.all(iterators.map((it) => it.return?.()));
  }
}
