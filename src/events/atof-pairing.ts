import { AtofParseError, type AtofWarning } from "./atof-errors.js";
import type { AtofEvent, ScopeEvent } from "./types.js";

interface Half {
  lineNo: number;
  name: string;
  category: string;
  attributes: string[];
  parentUuid: string | null;
}

interface Closed {
  startLine?: number;
  endLine: number;
  /** Kept only for an end seen before its start, so a late start can still be compared. */
  end?: Half;
}

function halfOf(event: ScopeEvent, lineNo: number): Half {
  return { lineNo, name: event.name, category: event.category, attributes: event.attributes, parentUuid: event.parent_uuid };
}

function sameAttributes(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function mismatch(start: Half, end: Half): string | null {
  if (start.name !== end.name) return `name ${JSON.stringify(start.name)} vs ${JSON.stringify(end.name)}`;
  if (start.category !== end.category) return `category ${JSON.stringify(start.category)} vs ${JSON.stringify(end.category)}`;
  if (!sameAttributes(start.attributes, end.attributes)) {
    return `attributes ${JSON.stringify(start.attributes)} vs ${JSON.stringify(end.attributes)}`;
  }
  if (start.parentUuid !== end.parentUuid) {
    return `parent_uuid ${JSON.stringify(start.parentUuid)} vs ${JSON.stringify(end.parentUuid)}`;
  }
  return null;
}

/**
 * Checks scope pairing across a stream, one event at a time: an end must repeat its start's name,
 * category, attributes and parent_uuid, and each uuid has at most one start and one end.
 * A start without an end is legal (crash, pending tool); an end without a start is a warning.
 */
export class AtofPairingChecker {
  private readonly open = new Map<string, Half>();
  private readonly closed = new Map<string, Closed>();

  check(event: AtofEvent, lineNo: number, warnings?: AtofWarning[]): void {
    if (event.kind !== "scope") return;
    const half = halfOf(event, lineNo);
    const uuid = event.uuid;
    if (event.scope_category === "start") {
      const first = this.open.get(uuid);
      const done = this.closed.get(uuid);
      if (first !== undefined || done?.startLine !== undefined) {
        const firstLine = first?.lineNo ?? done?.startLine;
        throw new AtofParseError(lineNo, `second start for uuid ${JSON.stringify(uuid)} (first start on line ${firstLine})`);
      }
      if (done?.end !== undefined) {
        this.compare(half, done.end, uuid);
        this.closed.set(uuid, { startLine: lineNo, endLine: done.endLine });
        return;
      }
      this.open.set(uuid, half);
      return;
    }
    const done = this.closed.get(uuid);
    if (done !== undefined) {
      throw new AtofParseError(lineNo, `second end for uuid ${JSON.stringify(uuid)} (first end on line ${done.endLine})`);
    }
    const start = this.open.get(uuid);
    if (start === undefined) {
      this.closed.set(uuid, { endLine: lineNo, end: half });
      warnings?.push({
        lineNo,
        code: "atof.end_without_start",
        message: `line ${lineNo}: end for uuid ${JSON.stringify(uuid)} has no start before it`,
      });
      return;
    }
    this.compare(start, half, uuid);
    this.open.delete(uuid);
    this.closed.set(uuid, { startLine: start.lineNo, endLine: lineNo });
  }

  /** Scopes started but not (yet) ended. */
  get openCount(): number {
    return this.open.size;
  }

  private compare(start: Half, end: Half, uuid: string): void {
    const diff = mismatch(start, end);
    if (diff === null) return;
    const line = Math.max(start.lineNo, end.lineNo);
    throw new AtofParseError(
      line,
      `end on line ${end.lineNo} does not match start on line ${start.lineNo} for uuid ${JSON.stringify(uuid)}: ${diff}`,
    );
  }
}
