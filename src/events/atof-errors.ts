/** A line of an ATOF stream that cannot be read; `lineNo` is 1-based. */
export class AtofParseError extends Error {
  readonly lineNo: number;
  readonly reason: string;

  constructor(lineNo: number, reason: string) {
    super(`ATOF line ${lineNo}: ${reason}`);
    this.name = "AtofParseError";
    this.lineNo = lineNo;
    this.reason = reason;
  }
}

/** The stream uses an `atof_version` whose major this reader does not understand (anything but `0.x`). */
export class UnsupportedAtofVersion extends AtofParseError {
  readonly version: string;

  constructor(lineNo: number, version: string) {
    super(lineNo, `unsupported atof_version ${JSON.stringify(version)} (this reader accepts 0.x)`);
    this.name = "UnsupportedAtofVersion";
    this.version = version;
  }
}

/** Something a reader accepted but flags, e.g. a foreign `custom` event without `category_profile.subtype`. */
export interface AtofWarning {
  lineNo: number;
  code: string;
  message: string;
}
