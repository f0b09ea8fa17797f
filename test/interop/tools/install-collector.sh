#!/usr/bin/env bash
# Builds an OpenTelemetry Collector with the collector's own builder (ocb) from the Go
# module proxy, using collector-builder.yaml, and prints the binary's path.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
MANIFEST_HASH="$(sha256sum "$TOOLS_DIR/collector-builder.yaml" | cut -c1-12)"
DIR="$CACHE_ROOT/otelcol-$COLLECTOR_VERSION-$MANIFEST_HASH"
build_collector() {
  local out="$1"
  mkdir -p "$out/src"
  cp "$TOOLS_DIR/collector-builder.yaml" "$out/src/builder.yaml"
  (
    cd "$out/src"
    GOBIN="$out/src/bin" go install "go.opentelemetry.io/collector/cmd/builder@v$COLLECTOR_VERSION"
    ./bin/builder --config builder.yaml --ldflags='-s -w'
    mv build/otelcol-relaytrace "$out/otelcol"
  )
  rm -rf "$out/src"
}
run_once "$DIR" otelcol build_collector
echo "$DIR/otelcol"
