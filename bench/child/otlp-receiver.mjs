// An OTLP/HTTP trace receiver (protobuf, or JSON when the content-type says so) on 127.0.0.1 (port 0), in its own process so that decoding
// the requests does not load the measured thread. Requests to /<source>/v1/traces are counted per
// <source> (requests, bytes, spans decoded from the body). IPC: sends {port} when listening;
// answers "stats" with the counts; exits on "close".
import { createServer } from "node:http";
import { countOtlpJsonSpans, countOtlpSpans } from "../lib/otlp-count.mjs";

const stats = {};
const server = createServer((req, res) => {
  const source = (req.url ?? "/").split("/")[1] || "unknown";
  const seen = (stats[source] ??= { requests: 0, bytes: 0, spans: 0, undecodable: 0 });
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    seen.requests += 1;
    seen.bytes += body.length;
    try {
      seen.spans += /json/.test(req.headers["content-type"] ?? "")
        ? countOtlpJsonSpans(body, req.headers["content-encoding"])
        : countOtlpSpans(body, req.headers["content-encoding"]);
    } catch {
      seen.undecodable += 1;
    }
    // An empty ExportTraceServiceResponse: every span accepted.
    if (/json/.test(req.headers["content-type"] ?? "")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    } else {
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end();
    }
  });
});
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("message", (msg) => {
  if (msg === "stats") process.send({ stats });
  else if (msg === "close") server.close(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
