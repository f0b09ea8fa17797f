/** A provider body that is not the shape its dialect requires; the message says what and where. */
export class WireShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireShapeError";
  }
}

/** A provider stream that reported an error event (the message is the provider's). */
export class WireStreamError extends WireShapeError {
  constructor(message: string) {
    super(message);
    this.name = "WireStreamError";
  }
}
