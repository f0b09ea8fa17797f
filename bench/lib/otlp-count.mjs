// Counts the spans in an OTLP/HTTP protobuf ExportTraceServiceRequest without a schema:
// request.resource_spans (field 1) → scope_spans (field 2) → spans (field 2). Three fixed levels,
// read with a loop (no recursion); unknown fields are skipped by wire type.
import { gunzipSync } from "node:zlib";

function varint(buf, pos) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (pos >= buf.length) throw new Error("truncated varint");
    const b = buf[pos++];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [value, pos];
    shift += 7;
  }
}

/** The [start, end) ranges of every length-delimited field `field` in buf[start, end). */
function fields(buf, start, end, field) {
  const out = [];
  let pos = start;
  while (pos < end) {
    let key;
    [key, pos] = varint(buf, pos);
    const type = key & 7;
    const number = Math.floor(key / 8);
    if (type === 0) [, pos] = varint(buf, pos);
    else if (type === 1) pos += 8;
    else if (type === 5) pos += 4;
    else if (type === 2) {
      let len;
      [len, pos] = varint(buf, pos);
      if (number === field) out.push([pos, pos + len]);
      pos += len;
    } else throw new Error(`unsupported protobuf wire type ${type}`);
  }
  if (pos !== end) throw new Error("protobuf field runs past its message");
  return out;
}

/** Number of spans in one request body (gunzipped first when `encoding` is gzip). */
export function countOtlpSpans(body, encoding) {
  const buf = encoding === "gzip" ? gunzipSync(body) : body;
  let spans = 0;
  for (const [rs, re] of fields(buf, 0, buf.length, 1)) {
    for (const [ss, se] of fields(buf, rs, re, 2)) spans += fields(buf, ss, se, 2).length;
  }
  return spans;
}

/** Number of spans in one OTLP/HTTP JSON request body (resourceSpans → scopeSpans → spans). */
export function countOtlpJsonSpans(body, encoding) {
  const buf = encoding === "gzip" ? gunzipSync(body) : body;
  let spans = 0;
  for (const rs of JSON.parse(buf.toString("utf8")).resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
  return spans;
}
