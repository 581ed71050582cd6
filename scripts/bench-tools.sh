#!/usr/bin/env bash
# Session start as a whole process: time `pigo tools --format json` on the examples tree against
# the floor (scripts/floor: read and parse the same files, nothing else) in one hyperfine run and
# print the ratio. Needs hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
go build -o "$tmp/floor" ./scripts/floor
agent=examples/agent project=examples/project
hyperfine -N --warmup 5 --runs "${RUNS:-60}" --export-json "$tmp/h.json" \
  -n pigo "$tmp/pigo --agent-dir $agent -C $project --approve tools --format json --model zhipu/glm-4.6" \
  -n floor "$tmp/floor $agent $project/.pi" >&2
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
p, f = r["pigo"]["mean"] * 1000, r["floor"]["mean"] * 1000
print(f"pigo tools: {p:.1f} ms   floor: {f:.1f} ms   ratio: {p / f:.2f}x")
PY
