#!/usr/bin/env bash
# bench-check.sh: time `pigo check` on examples/ against `cue vet` of the same JSON files
# against the same schema definitions, in one hyperfine run, and print the ratio.
#
# Compared files (JSON/JSONC, converted to plain JSON for cue): the agent dir's settings.json,
# sandbox.json, lsp.json, models.json, spawn-agent.json and extensions/git-tools.jsonc, and the
# project's .pi/settings.json, sandbox.json and lsp.json. The Markdown files (agents, prompts,
# skills) are left out of the cue side: cue cannot read frontmatter. pigo check does more than
# cue vet (it also checks the Markdown files and the embedded toolsets/commands, runs the
# semantic checks and resolves the registry), so the ratio favours cue.
#
# Needs: go, hyperfine. Installs cue at the version in go.mod into a temporary GOBIN.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # pigo's documented build (README); every binary compared is built the same way
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cuever=$(go list -m -f '{{.Version}}' cuelang.org/go)
echo "building pigo and installing cue $cuever ..." >&2
go build -o "$work/" ./cmd/pigo ./cmd/pigo-engines # the helper beside pigo, as installed
GOBIN="$work" go install "cuelang.org/go/cmd/cue@$cuever"
. scripts/installed.sh
installed "$work/pigo" "$work/pigo-engines" "$work/cue"

declare -A defs=(
  [agent/settings.json]='#Settings' [agent/sandbox.json]='#Sandbox' [agent/lsp.json]='#LSP'
  [agent/models.json]='#Models' [agent/spawn-agent.json]='#SpawnAgent'
  [agent/extensions/git-tools.jsonc]='#Extension'
  [project/.pi/settings.json]='#Settings' [project/.pi/sandbox.json]='#Sandbox' [project/.pi/lsp.json]='#LSP'
)
vet="$work/vet.sh"
echo "set -e" > "$vet"
for f in $(printf '%s\n' "${!defs[@]}" | sort); do
  out="$work/json/${f%.jsonc}"; out="${out%.json}.json"
  mkdir -p "$(dirname "$out")"
  go run ./scripts/jsonc2json "examples/$f" "$out"
  echo "\"$work/cue\" vet -d '${defs[$f]}' \"$root\"/schema/*.cue \"$out\"" >> "$vet"
done
echo "checking both sides pass once ..." >&2
bash "$vet"
"$work/pigo" check --agent-dir examples/agent -C examples/project --approve >/dev/null

export HOME="$work/home"   # no ~/.pi/web-search.json from the machine
mkdir -p "$HOME"
hyperfine --warmup 3 --min-runs 20 --export-json "$work/h.json" \
  -n "pigo check (examples)" "$work/pigo check --agent-dir examples/agent -C examples/project --approve" \
  -n "cue vet (${#defs[@]} files)" "bash $vet"

# The ratio from hyperfine's JSON: pigo's mean time over cue's.
cat > "$work/ratio.go" <<'GO'
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var r struct{ Results []struct{ Command string; Mean, Stddev float64 } }
	if err := json.Unmarshal(b, &r); err != nil {
		panic(err)
	}
	p, c := r.Results[0], r.Results[1]
	fmt.Printf("%s: %.1f ms ± %.1f\n%s: %.1f ms ± %.1f\nratio pigo/cue: %.2f\n",
		p.Command, p.Mean*1000, p.Stddev*1000, c.Command, c.Mean*1000, c.Stddev*1000, p.Mean/c.Mean)
}
GO
go run "$work/ratio.go" "$work/h.json"
