#!/usr/bin/env bash
# Builds the Jaeger binary (all-in-one: OTLP receivers, memory storage, query API) from the
# Go module proxy into the cache and prints its path.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
DIR="$CACHE_ROOT/jaeger-$JAEGER_VERSION"
build_jaeger() {
  local out="$1"
  mkdir -p "$out/src"
  (
    cd "$out/src"
    go mod init relaytrace-interop/jaeger >/dev/null 2>&1
    go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@v$JAEGER_VERSION"
    go build -trimpath -ldflags='-s -w' -o "$out/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger
  )
  rm -rf "$out/src"
}
run_once "$DIR" jaeger build_jaeger
echo "$DIR/jaeger"
