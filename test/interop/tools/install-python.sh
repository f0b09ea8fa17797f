#!/usr/bin/env bash
# Creates a virtual environment for one pinned PyPI package (phoenix or nat-atif) in the
# cache and prints the path of its python.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
case "${1:-}" in
  phoenix) NAME="phoenix-$PHOENIX_VERSION"; SPEC="arize-phoenix==$PHOENIX_VERSION" ;;
  # [full] brings jsonschema, which NAT's ATOF-to-ATIF converter needs.
  nat-atif) NAME="nat-atif-full-$NAT_ATIF_VERSION"; SPEC="nvidia-nat-atif[full]==$NAT_ATIF_VERSION" ;;
  *) echo "usage: install-python.sh phoenix|nat-atif" >&2; exit 2 ;;
esac
DIR="$CACHE_ROOT/$NAME"
# Venvs are not relocatable, so this one is built where it will live (the marker file says done).
if [ ! -e "$DIR/.complete" ]; then
  mkdir -p "$CACHE_ROOT/locks"
  exec 9>"$CACHE_ROOT/locks/$NAME.lock"
  flock 9
  if [ ! -e "$DIR/.complete" ]; then
    started=$SECONDS
    log "creating $NAME virtual environment (first run on this machine)"
    rm -rf "$DIR"
    python3 -m venv "$DIR"
    "$DIR/bin/pip" install --quiet --disable-pip-version-check --no-input "$SPEC"
    touch "$DIR/.complete"
    log "created $NAME in $((SECONDS - started))s"
  fi
  exec 9>&-
fi
echo "$DIR/bin/python"
