"""Reads relaytrace's output files with NVIDIA NeMo Agent Toolkit's own models (nvidia-nat-atif).

Usage: python check_files.py FILE...   (*.json = ATIF trajectory or array of them, *.jsonl = ATOF)
Prints one JSON object: per file, what NAT made of it, or the validation error it raised.
"""

import json
import sys
from pathlib import Path

from nat.atif import Trajectory
from nat.atof import read_jsonl


def check_atif(path: Path) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    docs = doc if isinstance(doc, list) else [doc]
    trajectories = [Trajectory.model_validate(d) for d in docs]
    return {
        "kind": "atif",
        "trajectories": len(trajectories),
        "steps": [len(t.steps) for t in trajectories],
        "tool_calls": [sum(len(s.tool_calls or []) for s in t.steps) for t in trajectories],
        "session_ids": [t.session_id for t in trajectories],
    }


def check_atof(path: Path) -> dict:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    events = read_jsonl(path)
    return {
        "kind": "atof",
        "lines": len(lines),
        "events": len(events),
        "names": sorted({e.name for e in events}),
    }


def main(paths: list[str]) -> int:
    report: dict[str, dict] = {}
    for name in paths:
        path = Path(name)
        try:
            report[name] = check_atof(path) if path.suffix == ".jsonl" else check_atif(path)
        except Exception as error:  # every failure is reported per file, with NAT's own message
            report[name] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
