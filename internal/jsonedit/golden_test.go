package jsonedit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// Each testdata/edits/*.txtar holds an "ops" script, an optional "in.json"
// (absent means the file does not exist) and either "out.json" (the exact
// expected bytes) or "error" (the expected error of the last operation).
//
// Script lines: "set PATH JSON", "unset PATH", "add PATH JSON", and the
// flags "crlf" (input converted to CRLF, output must be all CRLF and is
// compared after converting back) and "nofinalnewline" (input's final
// newline removed, output must have none and is compared with one added).
// UPDATE_GOLDEN=1 rewrites out.json and error.

var update = os.Getenv("UPDATE_GOLDEN") != ""

type op struct{ verb, path, value string }

func parseOps(t testing.TB, script string) (ops []op, crlf, noNL bool) {
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		switch f[0] {
		case "crlf":
			crlf = true
		case "nofinalnewline":
			noNL = true
		case "set", "add":
			if len(f) != 3 {
				t.Fatalf("bad op %q", line)
			}
			ops = append(ops, op{f[0], f[1], f[2]})
		case "unset":
			if len(f) != 2 {
				t.Fatalf("bad op %q", line)
			}
			ops = append(ops, op{f[0], f[1], ""})
		default:
			t.Fatalf("unknown op %q", line)
		}
	}
	return ops, crlf, noNL
}

func runOp(src []byte, o op) ([]byte, error) {
	p, err := ParsePath(o.path)
	if err != nil {
		return nil, err
	}
	switch o.verb {
	case "set":
		return Set(src, p, []byte(o.value))
	case "add":
		return Add(src, p, []byte(o.value))
	default:
		return Unset(src, p)
	}
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/edits/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Errorf("only %d golden cases, want at least 40", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]int{}
			for i, f := range ar.Files {
				sections[f.Name] = i
			}
			i, ok := sections["ops"]
			if !ok {
				t.Fatal("no ops section")
			}
			ops, crlf, noNL := parseOps(t, string(ar.Files[i].Data))
			var src []byte
			if i, ok := sections["in.json"]; ok {
				src = append([]byte{}, ar.Files[i].Data...)
				if noNL {
					src = bytes.TrimSuffix(src, []byte("\n"))
				}
				if crlf {
					src = bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
				}
			}
			orig := append([]byte(nil), src...)
			var gotErr string
			out := src
			for _, o := range ops {
				next, err := runOp(out, o)
				if err != nil {
					gotErr = err.Error() + "\n"
					break
				}
				out = next
			}
			if !bytes.Equal(src, orig) {
				t.Fatal("source buffer was modified in place")
			}
			got := out
			if gotErr == "" {
				if crlf {
					if bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
						t.Errorf("output mixes line endings:\n%q", got)
					}
					got = bytes.ReplaceAll(got, []byte("\r\n"), []byte("\n"))
				}
				if noNL {
					if bytes.HasSuffix(got, []byte("\n")) {
						t.Errorf("output gained a final newline")
					}
					got = append(got, '\n')
				}
			}
			want := map[string]string{}
			for _, name := range []string{"out.json", "error"} {
				if i, ok := sections[name]; ok {
					want[name] = string(ar.Files[i].Data)
				}
			}
			have := map[string]string{}
			if gotErr != "" {
				have["error"] = gotErr
			} else {
				have["out.json"] = string(got)
			}
			if update {
				var files []txtar.File
				for _, f := range ar.Files {
					if f.Name != "out.json" && f.Name != "error" {
						files = append(files, f)
					}
				}
				for _, name := range []string{"out.json", "error"} {
					if s, ok := have[name]; ok {
						files = append(files, txtar.File{Name: name, Data: []byte(s)})
					}
				}
				ar.Files = files
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("mismatch (-want +have):\n%s", diff)
			}
		})
	}
}
