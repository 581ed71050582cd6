package session

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// loadBoth loads a copy of the file one line at a time and a copy on every core (the
// parallel path forced for any size, in runs of run lines, read in small pieces) and fails unless everything
// observable is the same: the error, header, entries with their bytes, warnings in order,
// leaf, labels, the file's torn end, branch and context, and what the file holds afterwards
// (a version 1 or 2 file is migrated and rewritten).
func loadBoth(t *testing.T, name string, data []byte, run int) {
	t.Helper()
	defer func(a int64, r, c, p int) {
		parallelAbove, parallelRun, readChunk = a, r, c
		runtime.GOMAXPROCS(p)
	}(parallelAbove, parallelRun, readChunk, runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	load := func(above int64) (*Session, error, []byte) {
		// The parallel load reads in pieces of a few bytes to a few lines: lines then
		// straddle reads.
		parallelAbove, parallelRun, readChunk = above, run, 1+run*37%500
		dir := t.TempDir()
		p := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p, OpenOptions{Cwd: "/w"})
		if err == nil {
			s.Close()
		}
		after, _ := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s", strings.ReplaceAll(err.Error(), dir, "DIR")), after
		}
		for i, w := range s.Warnings {
			s.Warnings[i] = strings.ReplaceAll(w, dir, "DIR")
		}
		return s, nil, after
	}
	serial, serr, safter := load(1 << 62)
	par, perr, pafter := load(0)
	if fmt.Sprint(serr) != fmt.Sprint(perr) {
		t.Fatalf("%s: serial error %v, parallel %v", name, serr, perr)
	}
	if serr != nil {
		return
	}
	if string(safter) == string(data) && string(pafter) != string(data) ||
		strings.Count(string(safter), "\n") != strings.Count(string(pafter), "\n") {
		// A migrated file or a new header gets fresh ids and times: only its lines are counted.
		t.Fatalf("%s: the file differs after loading", name)
	}
	if !reflect.DeepEqual(serial.Warnings, par.Warnings) {
		t.Fatalf("%s: warnings differ:\n%q\n%q", name, serial.Warnings, par.Warnings)
	}
	if len(serial.entries) != len(par.entries) {
		t.Fatalf("%s: %d entries, parallel %d", name, len(serial.entries), len(par.entries))
	}
	if string(safter) != string(data) {
		return // migrated: fresh ids (and a migration is decoded on one core)
	}
	for i := range serial.entries {
		a, b := *serial.entries[i], *par.entries[i]
		if a.parent != b.parent {
			t.Fatalf("%s: entry %d's parent differs", name, i)
		}
		if string(a.raw()) != string(b.raw()) {
			t.Fatalf("%s: entry %d's line differs", name, i)
		}
		a.setRaw(nil)
		b.setRaw(nil)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: entry %d differs:\n%+v\n%+v", name, i, a, b)
		}
	}
	if serial.leaf != par.leaf || serial.needNL != par.needNL || serial.hasAssistant != par.hasAssistant ||
		!reflect.DeepEqual(serial.labels, par.labels) || serial.ids.n != par.ids.n {
		t.Fatalf("%s: leaf, torn end, labels or index differ", name)
	}
	if a, b := serial.Branch(""), par.Branch(""); len(a) != len(b) {
		t.Fatalf("%s: branches of %d and %d entries", name, len(a), len(b))
	}
	if !reflect.DeepEqual(serial.Context(), par.Context()) {
		t.Fatalf("%s: contexts differ", name)
	}
}

// sessionFixtures are the session files of the repository's tests (the .jsonl files in
// cmd/pigo's script archives) and pi's large-session.jsonl when it is there.
func sessionFixtures(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	archives, _ := filepath.Glob("../../cmd/pigo/testdata/script/*.txtar")
	for _, a := range archives {
		b, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		var name string
		var cur []string
		flush := func() {
			if strings.HasSuffix(name, ".jsonl") {
				out[filepath.Base(a)+":"+name] = []byte(strings.Join(cur, ""))
			}
		}
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if s := strings.TrimRight(l, "\n"); strings.HasPrefix(s, "-- ") && strings.HasSuffix(s, " --") {
				flush()
				name, cur = strings.TrimSuffix(strings.TrimPrefix(s, "-- "), " --"), nil
				continue
			}
			cur = append(cur, l)
		}
		flush()
	}
	if b, err := os.ReadFile("/tmp/large-session.jsonl"); err == nil {
		out["large-session.jsonl"] = b
		// It is a version 1 file (migrated on one core): its migration too.
		p := filepath.Join(t.TempDir(), "large.jsonl")
		os.WriteFile(p, b, 0o644)
		if s, err := Open(p, OpenOptions{}); err == nil {
			s.Close()
			out["large-session.jsonl migrated"], _ = os.ReadFile(p)
		}
	}
	return out
}

// TestParallelLoadFixtures: the repository's session files load the same on every core.
func TestParallelLoadFixtures(t *testing.T) {
	fx := sessionFixtures(t)
	if len(fx) < 5 {
		t.Fatalf("only %d session fixtures found", len(fx))
	}
	for name, b := range fx {
		for _, run := range []int{1, 3, 256} {
			loadBoth(t, name, b, run)
		}
	}
}

// TestParallelLoadEdges: generated files with what the loader warns about or skips placed
// in different runs: malformed lines, blank lines, a second header, repeated and missing
// ids, lines over MaxLineBytes, a torn last line, a file without a header, a version 1
// file.
func TestParallelLoadEdges(t *testing.T) {
	turns, err := os.ReadFile(writeTurns(t, 40))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(turns), "\n"), "\n")
	with := func(at map[int]string, tail string) []byte {
		var b strings.Builder
		for i, l := range lines {
			if x, ok := at[i]; ok {
				b.WriteString(x + "\n")
			}
			b.WriteString(l + "\n")
		}
		return []byte(b.String() + tail)
	}
	msg := func(id, parent string) string {
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}`, id, parent)
	}
	long := `{"type":"message","id":"long","parentId":null,"timestamp":"t","message":{"role":"user","content":"` + strings.Repeat("x", 3000) + `"}}`
	cases := map[string][]byte{
		"plain":         with(nil, ""),
		"malformed":     with(map[int]string{1: "{not json", 7: `[1,2]`, 50: `{"type":"message","id":3}`, 119: "nul"}, ""),
		"blank":         with(map[int]string{2: "", 3: "   ", 60: "\t"}, "\n\n"),
		"second header": with(map[int]string{30: `{"type":"session","version":3,"id":"other","timestamp":"t","cwd":"/"}`}, ""),
		"ids":           with(map[int]string{5: msg("dup", "nowhere"), 40: msg("dup", "dup"), 90: msg("x9", "dup")}, ""),
		"torn":          with(map[int]string{10: "{broken"}, `{"type":"message","id":"torn","par`),
		"torn json":     with(nil, msg("last", "")),
		"long line":     with(map[int]string{4: long, 80: long}, ""),
		"no header":     []byte("{broken\n" + msg("a", "") + "\n"),
		"header late":   []byte("{broken\n\n" + strings.Join(lines, "\n") + "\n"),
		"only blank":    []byte("\n  \n"),
		"empty":         nil,
		"v1": []byte(`{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}
{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}
{bad
{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"timestamp":2}}
`),
	}
	defer func(n int) { MaxLineBytes = n }(MaxLineBytes)
	MaxLineBytes = 2048
	for name, b := range cases {
		for _, run := range []int{1, 2, 7, 256} {
			loadBoth(t, name, b, run)
		}
	}
}
