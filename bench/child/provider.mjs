// A scripted OpenAI-style provider on 127.0.0.1, in its own process so that its work does not
// load the measured event loop. Every reply waits a fixed delay. Turns 1..toolTurns ask for
// `toolsPerTurn` tool calls; the next turn answers with text. Prints {"port": n}; exits on stdin close.
import { createServer } from "node:http";

const { delayMs, toolTurns, toolsPerTurn, tools } = JSON.parse(process.argv[2]);

function reply(body) {
  const assistantTurns = (body.messages ?? []).filter((m) => m.role === "assistant").length;
  const usage = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };
  if (assistantTurns < toolTurns) {
    const calls = Array.from({ length: toolsPerTurn }, (_, i) => ({
      id: `call_${assistantTurns}_${i}`,
      type: "function",
      function: { name: tools[i % tools.length], arguments: JSON.stringify({ city: "Paris", day: i }) },
    }));
    return { id: "r", model: "stub", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: calls }, finish_reason: "tool_calls" }], usage };
  }
  return { id: "r", model: "stub", choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }], usage };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
    const text = JSON.stringify(reply(body));
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(text);
    }, delayMs);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
