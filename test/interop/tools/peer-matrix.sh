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
# An argument picks the edges whose name contains it: `bash test/interop/tools/peer-matrix.sh mastra`.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$(cd "$TOOLS_DIR/../../.." && pwd)"
cd "$ROOT"
[ -d node_modules/vitest ] || { log "run npm ci first"; exit 1; }

# The @opentelemetry/api release the clone installed (an edge that brings its own copy pins this one).
CLONE_OTEL_API="$(node -p 'require("./node_modules/@opentelemetry/api/package.json").version')"

# name | packages to install (aliases as in devDependencies) | test files under test/ | Node line (default: this one)
# The OpenTelemetry JS SDK 3 edge is the app's SDK, not a peer of ours: relaytrace's own SDK 2 packages
# cannot share a tree with it (their @opentelemetry/api ranges do not overlap), so it is tested only
# here, installed apart, on the Node line it requires (>= 22.15). The Anthropic SDK depends on
# @opentelemetry/api itself: its edge pins the clone's api, the one copy an app's tree holds.
PEER_EDGES=(
  "ai 6 oldest|ai@6.0.0 @ai-sdk/openai-compatible@2.0.0|integrations/integrations-ai-sdk integrations/integrations-ai-sdk-fidelity"
  "ai 6 newest|ai@6.0.333 @ai-sdk/openai-compatible@2.0.92|integrations/integrations-ai-sdk integrations/integrations-ai-sdk-fidelity"
  "ai 7 oldest|ai7@npm:ai@7.0.106 openai-compatible7@npm:@ai-sdk/openai-compatible@3.0.0|integrations/integrations-ai-sdk7-telemetry"
  "@openai/agents-core oldest|agents-014@npm:@openai/agents@0.14.0|integrations/integrations-openai-agents-014"
  "@langchain/core oldest|@langchain/core@1.0.0 @langchain/openai@1.0.0|integrations/integrations-langchain"
  "@modelcontextprotocol/sdk oldest|@modelcontextprotocol/sdk@1.20.0 zod@3.25.76|integrations/integrations-mcp integrations/integrations-mcp-fidelity"
  "@mastra/observability oldest|@mastra/core@1.71.0 @mastra/observability@1.17.0|integrations/integrations-mastra"
  "openai oldest|openai@7.0.0|integrations/integrations-openai"
  "@anthropic-ai/sdk oldest|@anthropic-ai/sdk@1.0.0 @opentelemetry/api@$CLONE_OTEL_API|integrations/integrations-anthropic"
  "@google/genai oldest|@google/genai@3.1.0|integrations/integrations-google-genai"
  "OpenTelemetry JS SDK 3 app|otel-sdk-node3@npm:@opentelemetry/sdk-node@0.301.2|peers/otel-sdk3-app|24"
)

# The edge's install: a bare package.json plus the packages (no lockfile kept, no install scripts).
install_packages() {
  local dir="$1"
  printf '{ "private": true }\n' >"$dir/package.json"
  # shellcheck disable=SC2086
  (cd "$dir" && npm install --no-audit --no-fund --no-package-lock --ignore-scripts --loglevel=error $PACKAGES >&2)
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

status=0
summary=()
scratch=""
trap 'rm -rf "$scratch"' EXIT
for edge in "${PEER_EDGES[@]}"; do
  IFS='|' read -r name PACKAGES files node_line <<<"$edge"
  [[ "$name" == *"${1:-}"* ]] || continue
  key="$(printf '%s' "$PACKAGES" | sed 's/^@//; s/ @/ /g; s/@/-/g; s|/|+|g; s/:/=/g; s/ /_/g')"
  dir="$CACHE_ROOT/peers/$key"
  run_once "$dir" node_modules/.relaytrace-ready install_packages
  started=$SECONDS
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/relaytrace-peer-XXXXXX")"
  prepare_scratch "$scratch" "$dir"
  paths=()
  for f in $files; do paths+=("test/$f.test.ts"); done
  node_bin=node
  if [ -n "$node_line" ]; then
    for version in $NODE_MATRIX; do [[ "$version" == "$node_line".* ]] && node_bin="$(bash "$TOOLS_DIR/install-node.sh" "$version")/node"; done
    [ "$node_bin" != node ] || { log "no Node $node_line in NODE_MATRIX for $name"; exit 1; }
  fi
  # RELAYTRACE_PEER_TESTS: test/peers is left out of `npm test` (vitest.config.ts), not out of here.
  if (cd "$scratch" && RELAYTRACE_PEER_TESTS=1 "$node_bin" node_modules/vitest/vitest.mjs run "${paths[@]}" >"$scratch/vitest.log" 2>&1); then
    result=pass
  else
    result=FAIL
    status=1
    cat "$scratch/vitest.log" >&2
  fi
  line="$(printf '%-30s %-60s %s (%ss)' "$name" "$PACKAGES" "$result" "$((SECONDS - started))")"
  summary+=("$line")
  log "$line"
  rm -rf "$scratch"
done
printf '%s\n' "${summary[@]}"
exit "$status"
