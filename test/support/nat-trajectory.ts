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

/** Every violation, by document: the transcribed rules always, NAT's models when available. */
export function natTrajectoryProblems(docs: readonly unknown[]): string[] {
  const problems: string[] = [];
  docs.forEach((doc, i) => {
    for (const e of validateAtif(doc).errors) problems.push(`document ${i}: ${e.path || "/"}: ${e.message}`);
  });
  const python = natPythonInterpreter();
  if (python && docs.length > 0) problems.push(...natModelProblems(python, docs));
  return problems;
}

function natModelProblems(python: string, docs: readonly unknown[]): string[] {
  const run = spawnSync(python, ["-c", NAT_CHECK], { input: JSON.stringify(docs), encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) return [`NAT's models could not run: ${run.stderr || run.error?.message || `exit ${run.status}`}`];
  return JSON.parse(run.stdout) as string[];
}
