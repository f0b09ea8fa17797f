#!/usr/bin/env bash
# Installs every program the interop suite runs (cached by version; seconds when cached).
# Jaeger and the collector build in parallel with the Python environments.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
started=$SECONDS
pids=()
bash "$here/install-jaeger.sh" >/dev/null & pids+=($!)
bash "$here/install-collector.sh" >/dev/null & pids+=($!)
( bash "$here/install-python.sh" nat-atif >/dev/null && bash "$here/install-python.sh" phoenix >/dev/null ) & pids+=($!)
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
if [ "$status" -ne 0 ]; then echo "[interop-tools] an install failed (see above)" >&2; exit 1; fi
echo "[interop-tools] tools ready in $((SECONDS - started))s" >&2
