#!/usr/bin/env bash
# Runs each integration's tests against the edges of its peer range (package.json
# peerDependencies) that `npm test` does not reach with the devDependency versions.
# Each edge's packages are installed once into a cache directory outside the clone, keyed by
# the versions; a scratch copy of the sources and tests then gets a node_modules in which the
# edge's packages come first and the clone's node_modules fills the rest (symlinks), so the
# clone's lockfile and node_modules are never touched. Prints one line per edge; fails if any fails.
# The newest release of @langchain/core, @modelcontextprotocol/sdk, @mastra/core, @mastra/observability,
# ai 7, @openai/agents-core, openai, @anthropic-ai/sdk and @google/genai is the devDependency itself,
# which `npm test` runs; ai 6's is newer.
# Then relaytrace inside an app on each OpenTelemetry JS SDK line (OTEL_APPS): the app's packages are
# installed once into the cache as the app's own `npm install` would, relaytrace is packed, and the
# edge's test copies the app, adds the packed relaytrace with a plain `npm install`, checks npm's
# output and the api copies, and runs the app's programs (test/support/otel-app.ts).
# An argument picks the edges whose name contains it: `bash test/interop/tools/peer-matrix.sh mastra`.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$(cd "$TOOLS_DIR/../../.." && pwd)"
cd "$ROOT"
[ -d node_modules/vitest ] || { log "run npm ci first"; exit 1; }

# The @opentelemetry/api release the clone installed (an edge that brings its own copy pins this one).
CLONE_OTEL_API="$(node -p 'require("./node_modules/@opentelemetry/api/package.json").version')"

# name | packages to install (aliases as in devDependencies) | test files under test/
# The Anthropic SDK depends on @opentelemetry/api itself: its edge pins the clone's api, the one copy
# an app's tree holds.
PEER_EDGES=(
  "ai 6 oldest|ai@6.0.0 @ai-sdk/openai-compatible@2.0.0|integrations/integrations-ai-sdk integrations/integrations-ai-sdk-fidelity"
  "ai 6 newest|ai@6.0.333 @ai-sdk/openai-compatible@2.0.92|integrations/integrations-ai-sdk integrations/integrations-ai-sdk-fidelity"
  "ai 7 oldest|ai7@npm:ai@7.0.106 openai-compatible7@npm:@ai-sdk/openai-compatible@3.0.0|integrations/integrations-ai-sdk7-telemetry integrations/integrations-ai-sdk7-executions"
  "@openai/agents-core oldest|agents-014@npm:@openai/agents@0.14.0|integrations/integrations-openai-agents-014"
  "@langchain/core oldest|@langchain/core@1.0.0 @langchain/openai@1.0.0|integrations/integrations-langchain"
  "@modelcontextprotocol/sdk oldest|@modelcontextprotocol/sdk@1.20.0 zod@3.25.76|integrations/integrations-mcp integrations/integrations-mcp-fidelity"
  "@mastra/observability oldest|@mastra/core@1.71.0 @mastra/observability@1.17.0|integrations/integrations-mastra"
  "openai oldest|openai@7.0.0|integrations/integrations-openai"
  "@anthropic-ai/sdk oldest|@anthropic-ai/sdk@1.0.0 @opentelemetry/api@$CLONE_OTEL_API|integrations/integrations-anthropic"
  "@google/genai oldest|@google/genai@3.1.0|integrations/integrations-google-genai"
)

# name | the app's packages (what `npm install` names in a new app on that line today) | test file under test/
# SDK 2: the newest sdk-node 0.2xx and what it installs (sdk-trace-base 2.12.0, api 1.9); SDK 3:
# `npm install @opentelemetry/sdk-node @opentelemetry/api` today; SDK 2 with the trace SDK only: no
# sdk-node, no OTLP exporter, no logs or metrics SDK. Each app's TypeScript needs @types/node.
OTEL_APPS=(
  "OpenTelemetry JS SDK 2 app|@opentelemetry/sdk-node@0.223.0 @opentelemetry/api@1.9.1 @opentelemetry/sdk-trace-base@2.12.0 @opentelemetry/exporter-trace-otlp-proto@0.223.0 @types/node@22.20.7|peers/otel-sdk2-app"
  "OpenTelemetry JS SDK 2 app, trace SDK only|@opentelemetry/api@1.9.1 @opentelemetry/sdk-trace-base@2.12.0 @opentelemetry/sdk-trace-node@2.12.0 @types/node@22.20.7|peers/otel-sdk2-trace-app"
  "OpenTelemetry JS SDK 3 app|@opentelemetry/sdk-node@0.301.2 @opentelemetry/api@1.10.0 @opentelemetry/sdk-trace@3.1.1 @opentelemetry/exporter-trace-otlp-proto@0.301.2 @types/node@22.20.7|peers/otel-sdk3-app"
)

# The edge's install: a bare package.json plus the packages (no lockfile kept, no install scripts).
install_packages() {
  local dir="$1"
  printf '{ "private": true }\n' >"$dir/package.json"
  # shellcheck disable=SC2086
  (cd "$dir" && npm install --no-audit --no-fund --no-package-lock --ignore-scripts --loglevel=error $PACKAGES >&2)
  touch "$dir/node_modules/.relaytrace-ready"
}

# An OpenTelemetry app's install: its package.json and lockfile, as the app's own plain install leaves them.
install_app() {
  local dir="$1"
  printf '{ "name": "otel-app", "private": true, "type": "module" }\n' >"$dir/package.json"
  # shellcheck disable=SC2086
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error $PACKAGES >&2)
  touch "$dir/node_modules/.relaytrace-ready"
}

# link_modules TARGET SOURCE [NAME...]: symlinks the packages NAME (default: all) of the node_modules
# SOURCE into TARGET, except those TARGET already has.
link_modules() {
  local target="$1" source="$2" entry name
  shift 2
  if [ $# -eq 0 ]; then set -- $(cd "$source" && ls -d [!@.]* @*/[!.]* 2>/dev/null); fi
  for name in "$@"; do
    entry="$source/$name"
    [ -e "$entry" ] || continue
    [ -e "$target/$name" ] || [ -L "$target/$name" ] && continue
    mkdir -p "$(dirname "$target/$name")"
    ln -s "$(cd "$entry" && pwd -P)" "$target/$name"
  done
}

# A scratch copy of what the tests read. Its node_modules: the edge's packages (each resolves its
# own dependencies in the edge's install), then everything else from the clone's.
prepare_scratch() {
  local scratch="$1" installed="$2" spec names=()
  cp -R src exporters test examples docs package.json tsconfig.json vitest.config.ts README.md "$scratch/"
  mkdir -p "$scratch/node_modules"
  for spec in $PACKAGES; do names+=("$(printf '%s' "$spec" | sed 's/^\(@\{0,1\}[^@]*\)@.*/\1/')"); done
  link_modules "$scratch/node_modules" "$installed/node_modules" "${names[@]}"
  link_modules "$scratch/node_modules" "$ROOT/node_modules"
  ln -s "$(cd "$ROOT/node_modules/.bin" && pwd -P)" "$scratch/node_modules/.bin"
}

edge_key() { printf '%s' "$1" | sed 's/^@//; s/ @/ /g; s/@/-/g; s|/|+|g; s/:/=/g; s/ /_/g'; }

record() {
  local name="$1" result="$2" started="$3" log_file="$4"
  [ "$result" = pass ] || { status=1; cat "$log_file" >&2; }
  line="$(printf '%-30s %-60s %s (%ss)' "$name" "$PACKAGES" "$result" "$((SECONDS - started))")"
  summary+=("$line")
  log "$line"
}

status=0
summary=()
scratch=""
packed=""
trap 'rm -rf "$scratch" "$packed"' EXIT
for edge in "${PEER_EDGES[@]}"; do
  IFS='|' read -r name PACKAGES files <<<"$edge"
  [[ "$name" == *"${1:-}"* ]] || continue
  dir="$CACHE_ROOT/peers/$(edge_key "$PACKAGES")"
  run_once "$dir" node_modules/.relaytrace-ready install_packages
  started=$SECONDS
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/relaytrace-peer-XXXXXX")"
  prepare_scratch "$scratch" "$dir"
  paths=()
  for f in $files; do paths+=("test/$f.test.ts"); done
  result=FAIL
  (cd "$scratch" && node node_modules/vitest/vitest.mjs run "${paths[@]}" >"$scratch/vitest.log" 2>&1) && result=pass
  record "$name" "$result" "$started" "$scratch/vitest.log"
  rm -rf "$scratch"
done

for edge in "${OTEL_APPS[@]}"; do
  IFS='|' read -r name PACKAGES file <<<"$edge"
  [[ "$name" == *"${1:-}"* ]] || continue
  dir="$CACHE_ROOT/peers/app-$(edge_key "$PACKAGES")"
  run_once "$dir" node_modules/.relaytrace-ready install_app
  if [ -z "$packed" ]; then
    # The package as published: `npm pack` builds it (prepack) and leaves the tarball npm would upload.
    packed="$(mktemp -d "${TMPDIR:-/tmp}/relaytrace-pack-XXXXXX")"
    npm pack --silent --pack-destination "$packed" >/dev/null
  fi
  started=$SECONDS
  log_file="$packed/vitest.log"
  result=FAIL
  # RELAYTRACE_PEER_TESTS: test/peers is left out of `npm test` (vitest.config.ts), not out of here.
  RELAYTRACE_PEER_TESTS=1 RELAYTRACE_OTEL_APP="$dir" RELAYTRACE_TARBALL="$(ls "$packed"/relaytrace-*.tgz)" \
    node node_modules/vitest/vitest.mjs run "test/$file.test.ts" >"$log_file" 2>&1 && result=pass
  record "$name" "$result" "$started" "$log_file"
done
printf '%s\n' "${summary[@]}"
exit "$status"
