import { spawnSync } from "node:child_process";
import { validateAtif } from "../../exporters/atif/validate.js";

/**
 * Checks ATIF documents the way NVIDIA NeMo Agent Toolkit loads them: relaytrace's transcription
 * of NAT's `Trajectory` rules (atif.md §1.7, `validateAtif`), and — where a Python with the
 * `nvidia-nat-atif` package is available — NAT's own pydantic models. Point
 * `RELAYTRACE_NAT_PYTHON` at that interpreter (a venv outside the repository); `python3` is
 * tried when it is unset. Without one, only the transcription runs: `npm test` needs only Node.
 */

const NAT_CHECK = `
import json, sys
from nat.atif.trajectory import Trajectory
docs = json.load(sys.stdin)
problems = []
for i, doc in enumerate(docs):
    try:
        Trajectory.model_validate(doc)
    except Exception as err:
        problems.append(f"document {i}: {err}")
print(json.dumps(problems))
`;

let natPython: string | null | undefined;

/** The interpreter that can import NAT's ATIF models, or null when this machine has none. */
export function natPythonInterpreter(): string | null {
  if (natPython !== undefined) return natPython;
  const candidates = [process.env.RELAYTRACE_NAT_PYTHON, "python3"].filter((c): c is string => !!c);
  natPython = null;
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ["-c", "import nat.atif.trajectory"], { stdio: "ignore", timeout: 20_000 });
    if (probe.status === 0) {
      natPython = candidate;
      break;
    }
  }
  return natPython;
}

// Python's json module and pydantic recurse per nesting level (limit about 1000): deeper documents
// (relaytrace's own stress tests nest thousands of subagents) get the transcribed rules only.
const PYTHON_MAX_DEPTH = 400;

/** The deepest `{`/`[` nesting of a JSON text, by one linear scan (strings skipped). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * Every violation, by document: the transcribed rules always, NAT's models when available.
 * `texts` are the documents' JSON texts when the caller has them (no re-serializing of deep documents).
 */
export function natTrajectoryProblems(docs: readonly unknown[], texts?: readonly string[]): string[] {
  const problems: string[] = [];
  docs.forEach((doc, i) => {
    for (const e of validateAtif(doc).errors) problems.push(`document ${i}: ${e.path || "/"}: ${e.message}`);
  });
  const python = natPythonInterpreter();
  if (!python) return problems;
  const jsonTexts = texts ?? docs.map((d) => JSON.stringify(d));
  const shallow = jsonTexts.filter((t) => nestingDepth(t) <= PYTHON_MAX_DEPTH);
  if (shallow.length > 0) problems.push(...natModelProblems(python, shallow));
  return problems;
}

function natModelProblems(python: string, texts: readonly string[]): string[] {
  const run = spawnSync(python, ["-c", NAT_CHECK], {
    input: `[${texts.join(",")}]`,
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) return [`NAT's models could not run: ${run.stderr || run.error?.message || `exit ${run.status}`}`];
  return JSON.parse(run.stdout) as string[];
}
