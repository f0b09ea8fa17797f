#!/usr/bin/env bash
# Runs the core suite (test/runtimes/core-suite.mjs: the quickstart, runtime and tool lifecycle,
# ATOF and ATIF files, OTLP HTTP/JSON and HTTP/protobuf to a loopback receiver, SpanCapture) on
# Bun and Deno against the built package, and the Workers suite (test/runtimes/workers.mjs: a
# bundled Worker on workerd exporting 20 traces over fetch). Fails if any check fails on any.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$(cd "$TOOLS_DIR/../../.." && pwd)"
cd "$ROOT"
[ -e dist/src/index.js ] || npm run build --silent
bun="$(bash "$TOOLS_DIR/install-js-runtime.sh" bun)"
deno="$(bash "$TOOLS_DIR/install-js-runtime.sh" deno)"
workerd="$(bash "$TOOLS_DIR/install-js-runtime.sh" workerd)"
log "core suite on Bun $("$bun" --version)"
"$bun" test/runtimes/core-suite.mjs
log "core suite on Deno $("$deno" --version | head -1)"
"$deno" run --allow-all test/runtimes/core-suite.mjs
log "Workers suite on workerd $("$workerd" --version)"
node test/runtimes/workers.mjs "$workerd"
