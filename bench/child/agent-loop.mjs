// §3 or §3b in a process of its own, so that the loop is measured in a fresh process (as an app
// runs it), not in one whose heap and compiled code the earlier sections shaped.
// argv: <json {section: "loop" | "conversation", cfg}>. Prints one JSON line.
import { loadRelaytrace } from "../lib/load.mjs";
import { runLoop } from "../suites/loop.mjs";
import { runConversation } from "../suites/conversation.mjs";

const { section, cfg } = JSON.parse(process.argv[2]);
const api = await loadRelaytrace();
const result = section === "loop" ? await runLoop(api, cfg) : await runConversation(api, cfg);
process.stdout.write(JSON.stringify(result) + "\n");
