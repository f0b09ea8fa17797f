// A scripted OpenAI-style provider on 127.0.0.1, in its own process so that its work does not
// load the measured event loop. Every reply waits a fixed delay. Turns 1..toolTurns ask for
// `toolsPerTurn` tool calls (with `assistantTextBytes` of text beside them, default none); the
// next turn answers with text. Prints {"port": n}; on a stdin line "sizes" prints
// {"sizes": [[requestBytes, responseBytes], ...]} of the latest request of each turn; exits on stdin close.
import { createServer } from "node:http";

const { delayMs, toolTurns, toolsPerTurn, tools, assistantTextBytes = 0 } = JSON.parse(process.argv[2]);
const TEXT = "The forecast notes for this leg of the trip, kept in the context on purpose. "
  .repeat(Math.ceil(assistantTextBytes / 77))
  .slice(0, assistantTextBytes);
const sizes = [];

function reply(body, turn) {
  const usage = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };
  if (turn < toolTurns) {
    const calls = Array.from({ length: toolsPerTurn }, (_, i) => ({
      id: `call_${turn}_${i}`,
      type: "function",
      function: { name: tools[i % tools.length], arguments: JSON.stringify({ city: "Paris", day: i }) },
    }));
    const content = assistantTextBytes > 0 ? TEXT : null;
    return {
      id: "r",
      model: "stub",
      choices: [{ index: 0, message: { role: "assistant", content, tool_calls: calls }, finish_reason: "tool_calls" }],
      usage,
    };
  }
  return { id: "r", model: "stub", choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }], usage };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    const body = chunks.length ? JSON.parse(raw.toString("utf8")) : {};
    const turn = (body.messages ?? []).filter((m) => m.role === "assistant").length;
    const text = JSON.stringify(reply(body, turn));
    sizes[turn] = [raw.length, Buffer.byteLength(text)];
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(text);
    }, delayMs);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");
});
let input = "";
process.stdin.on("data", (c) => {
  input += c;
  for (let nl = input.indexOf("\n"); nl >= 0; nl = input.indexOf("\n")) {
    const line = input.slice(0, nl);
    input = input.slice(nl + 1);
    if (line === "sizes") process.stdout.write(JSON.stringify({ sizes }) + "\n");
  }
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
