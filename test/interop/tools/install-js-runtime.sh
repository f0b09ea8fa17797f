#!/usr/bin/env bash
# Unpacks the Bun, Deno or workerd binary of the pinned version from its npm package into the cache
# and prints the binary's path.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
WHICH="${1:?usage: install-js-runtime.sh bun|deno|workerd|workerd-minimum}"
case "$WHICH" in
  bun) PACKAGE="@oven/bun-linux-x64@$BUN_VERSION"; DIR="$CACHE_ROOT/bun-$BUN_VERSION"; BIN=package/bin/bun ;;
  deno) PACKAGE="@deno/linux-x64-glibc@$DENO_VERSION"; DIR="$CACHE_ROOT/deno-$DENO_VERSION"; BIN=package/deno ;;
  workerd) PACKAGE="@cloudflare/workerd-linux-64@$WORKERD_VERSION"; DIR="$CACHE_ROOT/workerd-$WORKERD_VERSION"; BIN=package/bin/workerd ;;
  workerd-minimum)
    PACKAGE="@cloudflare/workerd-linux-64@$WORKERD_MINIMUM_VERSION"; DIR="$CACHE_ROOT/workerd-$WORKERD_MINIMUM_VERSION"; BIN=package/bin/workerd ;;
  *) echo "usage: install-js-runtime.sh bun|deno|workerd|workerd-minimum" >&2; exit 2 ;;
esac
unpack_runtime() {
  local out="$1"
  (cd "$out" && npm pack --silent "$PACKAGE" >/dev/null && tar -xzf ./*.tgz && rm ./*.tgz)
  chmod +x "$out/$BIN"
  "$out/$BIN" --version >/dev/null
}
run_once "$DIR" "$BIN" unpack_runtime
echo "$DIR/$BIN"
