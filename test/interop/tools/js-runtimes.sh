#!/usr/bin/env bash
# Runs the core suite (test/runtimes/core-suite.mjs: the quickstart, runtime and tool lifecycle,
# ATOF and ATIF files, OTLP HTTP/JSON and HTTP/protobuf to a loopback receiver, SpanCapture) on
# Bun, and on Deno with only the permissions docs/runtimes.md lists, against the built package;
# and the Workers suite (test/runtimes/workers.mjs: bundled Workers, with one runtime per isolate
# and one per request, and the Worker blocks of docs/runtimes.md, on workerd) on the oldest
# workerd the docs support and on the newest. Fails if any check fails on any.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$(cd "$TOOLS_DIR/../../.." && pwd)"
cd "$ROOT"
[ -e dist/src/index.js ] || npm run build --silent
bun="$(bash "$TOOLS_DIR/install-js-runtime.sh" bun)"
deno="$(bash "$TOOLS_DIR/install-js-runtime.sh" deno)"
workerd="$(bash "$TOOLS_DIR/install-js-runtime.sh" workerd)"
workerd_minimum="$(bash "$TOOLS_DIR/install-js-runtime.sh" workerd-minimum)"
log "core suite on Bun $("$bun" --version)"
"$bun" test/runtimes/core-suite.mjs
log "core suite on Deno $("$deno" --version | head -1), with the permissions the docs list (no --allow-sys)"
"$deno" run --allow-net --allow-read --allow-write --allow-env test/runtimes/core-suite.mjs
log "Workers suite on the oldest supported workerd ($("$workerd_minimum" --version))"
node test/runtimes/workers.mjs "$workerd_minimum" --compatibility-date="$WORKERD_MINIMUM_COMPATIBILITY_DATE" --compatibility-flags=nodejs_compat
log "Workers suite on the newest workerd ($("$workerd" --version))"
node test/runtimes/workers.mjs "$workerd"
