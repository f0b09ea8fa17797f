# Shared by the install scripts: cache location, locking, timing.
set -euo pipefail
TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
. "$TOOLS_DIR/versions.env"
CACHE_ROOT="${RELAYTRACE_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/relaytrace-interop}"
mkdir -p "$CACHE_ROOT"

log() { printf '[interop-tools] %s\n' "$*" >&2; }

# run_once DIR MARKER BUILD_FN: builds into DIR unless DIR/MARKER exists. A lock makes
# concurrent callers wait for one build; a failed build leaves nothing that looks finished.
run_once() {
  local dir="$1" marker="$2" fn="$3"
  if [ -e "$dir/$marker" ]; then return 0; fi
  mkdir -p "$CACHE_ROOT/locks"
  exec 9>"$CACHE_ROOT/locks/$(basename "$dir").lock"
  flock 9
  if [ ! -e "$dir/$marker" ]; then
    local started=$SECONDS
    rm -rf "$dir.partial"
    mkdir -p "$dir.partial"
    log "preparing $(basename "$dir") (first run on this machine)"
    "$fn" "$dir.partial"
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
    log "prepared $(basename "$dir") in $((SECONDS - started))s"
  fi
  exec 9>&-
}
