import type { TraceServiceResponse } from "./otlp-export-response.js";

// The body of an OTLP/HTTP protobuf trace export's reply: ExportTraceServiceResponse, whose one
// field (1) is ExportTracePartialSuccess { rejected_spans = 1 (int64), error_message = 2 (string) }.
// Decoded here so that sending protobuf traces does not load OpenTelemetry's transformer (which
// brings in the logs and metrics SDKs with it).

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

const decoder = new TextDecoder();

class Reader {
  private pos = 0;

  constructor(private readonly bytes: Uint8Array) {}

  atEnd(): boolean {
    return this.pos >= this.bytes.length;
  }

  /** An unsigned varint; values past 2^53 lose precision (a count of rejected spans never gets there). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new Error("malformed varint");
  }

  bytesField(): Uint8Array {
    const length = this.varint();
    if (this.pos + length > this.bytes.length) throw new Error("truncated field");
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === LENGTH_DELIMITED) this.bytesField();
    else if (wireType === FIXED64) this.advance(8);
    else if (wireType === FIXED32) this.advance(4);
    else throw new Error(`unsupported wire type ${wireType}`);
  }

  private advance(count: number): void {
    if (this.pos + count > this.bytes.length) throw new Error("truncated field");
    this.pos += count;
  }

  private byte(): number {
    if (this.pos >= this.bytes.length) throw new Error("truncated varint");
    return this.bytes[this.pos++]!;
  }
}

/** Decodes a reply body; throws on a malformed one (the OTLP delivery then logs it and counts the export as sent). */
export function decodeTraceResponse(body: Uint8Array): TraceServiceResponse {
  const response: TraceServiceResponse = {};
  const reader = new Reader(body);
  while (!reader.atEnd()) {
    const tag = reader.varint();
    if (tag >>> 3 === 1 && (tag & 7) === LENGTH_DELIMITED) response.partialSuccess = decodePartialSuccess(reader.bytesField());
    else reader.skip(tag & 7);
  }
  return response;
}

function decodePartialSuccess(body: Uint8Array): NonNullable<TraceServiceResponse["partialSuccess"]> {
  const partial: NonNullable<TraceServiceResponse["partialSuccess"]> = {};
  const reader = new Reader(body);
  while (!reader.atEnd()) {
    const tag = reader.varint();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === 1 && wireType === VARINT) partial.rejectedSpans = reader.varint();
    else if (field === 2 && wireType === LENGTH_DELIMITED) partial.errorMessage = decoder.decode(reader.bytesField());
    else reader.skip(wireType);
  }
  return partial;
}
