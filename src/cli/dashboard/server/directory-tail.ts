import { open, type FileHandle } from "node:fs/promises";
import { DEFAULT_MAX_LINE_BYTES, isCompleteJson } from "../../../events/atof-reader.js";
import { atofFilesIn } from "./safe-path.js";

/** One line of a file in the directory: where it is (to read it again) and its text. */
export interface TailLine {
  /** The file's index in `DirectoryTail.files` (stable while the tail lives). */
  file: number;
  offset: number;
  /** Bytes of the line without its line end. */
  length: number;
  lineNo: number;
  text: string;
}

export interface TailedFile {
  name: string;
  path: string;
  /** Bytes read and handed out as lines; a last line without its line end is read again next time. */
  offset: number;
  lineNo: number;
  ino: number;
  deleted: boolean;
  /** Inside a line longer than the cap: its bytes are skipped up to the next line end. */
  overlong: boolean;
  /** The last line was taken without its line end (it was complete JSON): a line end that follows closes it. */
  tookUnterminated: boolean;
}

/** Why a poll cannot go on from where the last one stopped: the caller starts over. */
export type TailReset = { reset: string };

const CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Follows every `*.jsonl` file of a directory as one input, in name order (a rotating writer's
 * files sort in write order): each poll reads what each file gained since the last one, hands out
 * its complete lines and keeps a last line without its line end for the next poll, unless it is
 * already complete JSON. New files join as they appear; a deleted file is marked (its lines were
 * read). A file that shrank or was replaced under the same name cannot be followed: the poll
 * says so and the caller rebuilds.
 */
export class DirectoryTail {
  readonly files: TailedFile[] = [];
  private readonly byName = new Map<string, TailedFile>();
  /** Names refused (a link leading out of the directory, not a regular file), with the reason. */
  refused: string[] = [];

  constructor(
    private readonly realDir: string,
    private readonly onLine: (line: TailLine) => void,
    private readonly onOverlong: (file: number, lineNo: number) => void,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
    /** Asked between reads: a tail being closed stops at once, not after the directory's last byte. */
    private readonly stopped: () => boolean = () => false,
  ) {}

  /** Reads what is new in every file; returns a reset when the files cannot be followed any more. */
  async poll(): Promise<TailReset | undefined> {
    const { files, refused } = await atofFilesIn(this.realDir);
    this.refused = refused;
    const present = new Set(files.map((f) => f.name));
    for (const f of this.files) if (!present.has(f.name)) f.deleted = true;
    for (const entry of files) {
      if (this.stopped()) return undefined;
      let file = this.byName.get(entry.name);
      if (file?.deleted) return { reset: `${entry.name} was deleted and created again` };
      if (file === undefined) {
        file = {
          name: entry.name,
          path: entry.path,
          offset: 0,
          lineNo: 0,
          ino: -1,
          deleted: false,
          overlong: false,
          tookUnterminated: false,
        };
        this.files.push(file);
        this.byName.set(entry.name, file);
      }
      const reset = await this.readNew(this.files.indexOf(file), file);
      if (reset) return reset;
    }
    return undefined;
  }

  private async readNew(index: number, file: TailedFile): Promise<TailReset | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(file.path, "r");
    } catch {
      return undefined; // gone since the listing: the next poll marks it deleted
    }
    try {
      const info = await handle.stat();
      if (file.ino === -1) file.ino = info.ino;
      else if (info.ino !== file.ino) return { reset: `${file.name} was replaced` };
      if (info.size < file.offset) return { reset: `${file.name} shrank from ${file.offset} to ${info.size} bytes` };
      if (info.size > file.offset) await this.readRange(handle, index, file, info.size);
      return undefined;
    } finally {
      await handle.close();
    }
  }

  /** Splits the bytes from `file.offset` to `size` into lines (a line may span reads). */
  private async readRange(handle: FileHandle, index: number, file: TailedFile, size: number): Promise<void> {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let pieces: Buffer[] = [];
    let held = 0;
    let lineStart = file.offset;
    let pos = file.offset;
    while (pos < size && !this.stopped()) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, size - pos), pos);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let from = 0;
      if (file.tookUnterminated && pos === file.offset && chunk[0] === NEWLINE) {
        from = 1;
        lineStart = pos + 1;
      }
      file.tookUnterminated = false;
      for (let at = chunk.indexOf(NEWLINE, from); at >= 0; at = chunk.indexOf(NEWLINE, from)) {
        if (!file.overlong) this.emit(index, file, lineStart, Buffer.concat([...pieces, chunk.subarray(from, at)]));
        else file.lineNo++;
        file.overlong = false;
        pieces = [];
        held = 0;
        lineStart = pos + at + 1;
        from = at + 1;
      }
      if (from < bytesRead && !file.overlong) {
        pieces.push(Buffer.from(chunk.subarray(from)));
        held += bytesRead - from;
        if (held > this.maxLineBytes) {
          file.overlong = true;
          pieces = [];
          this.onOverlong(index, file.lineNo + 1);
        }
      }
      pos += bytesRead;
    }
    file.offset = lineStart;
    if (file.overlong) {
      file.offset = pos;
      return;
    }
    if (held > 0) {
      // A last line without its line end: taken when it is already a whole event, else read again next time.
      const rest = Buffer.concat(pieces);
      if (isCompleteJson(rest.toString("utf8"))) {
        this.emit(index, file, lineStart, rest);
        file.offset = pos;
        file.tookUnterminated = true;
      }
    }
  }

  private emit(index: number, file: TailedFile, offset: number, bytes: Buffer): void {
    file.lineNo++;
    let text = bytes.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    this.onLine({ file: index, offset, length: bytes.length, lineNo: file.lineNo, text });
  }
}
