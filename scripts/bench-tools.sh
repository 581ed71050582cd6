#!/usr/bin/env bash
# Session start as a whole process: time `pigo tools --format json` on the examples tree against
# the floor (scripts/floor: read and parse the same files, nothing else) and print the ratio.
# This machine's speed drifts within minutes, so the two are measured in ROUNDS short hyperfine
# runs one after the other (RUNS in all, each round RUNS/ROUNDS of each): a drift then moves
# both alike. Prints each round's ratio, their median and range, and the ratio of the means
# over all runs. Needs hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
runs=${RUNS:-60} rounds=${ROUNDS:-6}
[ "$rounds" -ge 1 ] && [ "$runs" -ge "$rounds" ] || { echo "need RUNS >= ROUNDS >= 1" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
go build -o "$tmp/floor" ./scripts/floor
. scripts/installed.sh
installed "$tmp/pigo" "$tmp/pigo-engines" "$tmp/floor"
agent=examples/agent project=examples/project
for i in $(seq "$rounds"); do
  hyperfine -N --warmup 3 --runs $((runs / rounds)) --export-json "$tmp/h$i.json" \
    -n pigo "$tmp/pigo --agent-dir $agent -C $project --approve tools --format json --model zhipu/glm-4.6" \
    -n floor "$tmp/floor $agent $project/.pi" >&2
done
python3 - "$tmp"/h*.json <<'PY'
import json, statistics, sys
times = {"pigo": [], "floor": []}
ratios = []
for path in sys.argv[1:]:
    r = {x["command"]: x for x in json.load(open(path))["results"]}
    for k in times:
        times[k] += r[k]["times"]
    ratios.append(r["pigo"]["mean"] / r["floor"]["mean"])
p, f = statistics.mean(times["pigo"]) * 1000, statistics.mean(times["floor"]) * 1000
rounds = " ".join(f"{x:.2f}" for x in ratios)
print(f"rounds: {rounds}")
print(f"pigo tools: {p:.1f} ms   floor: {f:.1f} ms   ratio: {p / f:.2f}x   "
      f"median of {len(ratios)} rounds: {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})")
PY
