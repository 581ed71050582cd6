#!/usr/bin/env bash
# MCP and session start: time `pigo tools --format json` on the examples tree without MCP
# servers and with ten declared servers whose tool lists are in the schema cache (20 tools
# each), in one hyperfine run, and print the ratio (issue 24's target: at most 2x). Needs
# hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
. scripts/installed.sh
installed "$tmp/pigo" "$tmp/pigo-engines"
go run ./scripts/mcpcache "$tmp/agent" "$tmp/cache" 10 20 examples/agent
project=examples/project
hyperfine -N --warmup 5 --runs "${RUNS:-60}" --export-json "$tmp/h.json" \
  -n plain "env PIGO_CACHE_DIR=$tmp/cache $tmp/pigo --agent-dir examples/agent -C $project --approve tools --format json --model zhipu/glm-4.6" \
  -n mcp "env PIGO_CACHE_DIR=$tmp/cache $tmp/pigo --agent-dir $tmp/agent -C $project --approve tools --format json --model zhipu/glm-4.6" >&2
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
p, m = r["plain"]["mean"] * 1000, r["mcp"]["mean"] * 1000
print(f"pigo tools: {p:.1f} ms   with ten cached MCP servers: {m:.1f} ms   ratio: {m / p:.2f}x")
PY
