package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/jsonedit"
)

var update = os.Getenv("UPDATE_GOLDEN") == "1"

// golden compares got with testdata/NAME, or rewrites it under UPDATE_GOLDEN=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// TestMigrateGolden rewrites each testdata/migrate/*.in.json and compares it byte for byte with
// its .out.json; the result must parse, validate and keep every comment of a surviving key.
func TestMigrateGolden(t *testing.T) {
	ins, _ := filepath.Glob("testdata/migrate/*.in.json")
	if len(ins) == 0 {
		t.Fatal("no migration cases")
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out, err := MigrateFlatSandbox(in, src)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "migrate/"+name+".out.json", out)
			for _, c := range comments(src) {
				if !bytes.Contains(out, []byte(c)) {
					t.Errorf("comment %q lost", c)
				}
			}
			if bytes.Contains(out, []byte("\r\n")) != bytes.Contains(src, []byte("\r\n")) {
				t.Errorf("line endings changed")
			}
			again, err := MigrateFlatSandbox(in, out)
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("migrating twice changed the result (err %v)", err)
			}
		})
	}
}

// comments returns the comments of a JSONC text (a rough scan: no "//" inside strings here).
func comments(src []byte) []string {
	var out []string
	s := string(src)
	for {
		i := strings.Index(s, "//")
		j := strings.Index(s, "/*")
		switch {
		case i < 0 && j < 0:
			return out
		case j < 0 || (i >= 0 && i < j):
			e := strings.IndexAny(s[i:], "\r\n")
			if e < 0 {
				e = len(s) - i
			}
			out = append(out, strings.TrimSpace(s[i:i+e]))
			s = s[i+e:]
		default:
			e := strings.Index(s[j:], "*/")
			out = append(out, s[j:j+e+2])
			s = s[j+e+2:]
		}
	}
}

// TestMigrateModes checks the mapping of every flat mode onto the two axes, through the
// effective configuration of the migrated file.
func TestMigrateModes(t *testing.T) {
	cases := []struct{ mode, fs, net string }{
		{"allow-all", "allow-all", "allow-all"},
		{"workspace-write", "workspace-write", "block"},
		{"readonly", "readonly", "block"},
		{"allow-net", "workspace-write", "allow-all"},
		{"net-allowlist", "workspace-write", "limited"},
	}
	for _, c := range cases {
		out, err := MigrateFlatSandbox("bwrap.json", []byte(`{"mode": "`+c.mode+`", "tmpfsPaths": ["/a", "/b/"], "networkAllowlist": ["x.org"]}`))
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		root, err := jsonc.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		got := string(root.JSON())
		want := `{"fs":{"mode":"` + c.fs + `","denyPaths":["/a/","/b/"]},"network":{"mode":"` + c.net + `","allowlist":["x.org"]}}`
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.mode, got, want)
		}
	}
}

func TestMigrateRefusesInvalid(t *testing.T) {
	_, err := MigrateFlatSandbox("bwrap.json", []byte(`{"mode": "sideways"}`))
	var ee *EditError
	if !errors.As(err, &ee) || len(ee.Diags) == 0 {
		t.Fatalf("want a refusal with diagnostics, got %v", err)
	}
	if _, err := MigrateFlatSandbox("bwrap.json", []byte(`{"mode": `)); err == nil {
		t.Fatal("a broken file migrated")
	}
}

// TestMigrateSandboxFiles runs the file-level migration: bwrap.json → sandbox.json beside it,
// the old file kept unless removeOld, and a differing sandbox.json refused.
func TestMigrateSandboxFiles(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	write(t, filepath.Join(agent, "bwrap.json"), `{"mode": "readonly"}`)
	c := load(t, home, t.TempDir(), nil)
	m, err := c.MigrateSandbox(Global)
	if err != nil {
		t.Fatal(err)
	}
	if m.From != filepath.Join(agent, "bwrap.json") || m.To != filepath.Join(agent, "sandbox.json") {
		t.Fatalf("from %s to %s", m.From, m.To)
	}
	if !strings.Contains(m.Diff(), "+++ b/"+strings.TrimPrefix(m.To, "/")) {
		t.Errorf("diff: %s", m.Diff())
	}
	if err := m.Write(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.From); err != nil {
		t.Errorf("bwrap.json removed without removeOld: %v", err)
	}
	got, _ := os.ReadFile(m.To)
	if !bytes.Equal(got, m.New) {
		t.Errorf("sandbox.json = %q", got)
	}
	// Again: sandbox.json now holds exactly the migration: nothing to do; removeOld removes.
	m2, err := load(t, home, t.TempDir(), nil).MigrateSandbox(Global)
	if err != nil || !m2.Done {
		t.Fatalf("second migration: done=%v err=%v", m2 != nil && m2.Done, err)
	}
	if err := m2.Write(true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.From); !os.IsNotExist(err) {
		t.Errorf("bwrap.json kept with removeOld: %v", err)
	}
	// A differing sandbox.json is never overwritten.
	write(t, filepath.Join(agent, "bwrap.json"), `{"mode": "allow-all"}`)
	if _, err := load(t, home, t.TempDir(), nil).MigrateSandbox(Global); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("want a refusal, got %v", err)
	}
	// A concurrent change between planning and writing is detected.
	os.Remove(filepath.Join(agent, "bwrap.json"))
	write(t, filepath.Join(agent, "sandbox.json"), `{"mode": "allow-all"}`)
	m3, err := load(t, home, t.TempDir(), nil).MigrateSandbox(Global)
	if err != nil || m3.From != m3.To {
		t.Fatalf("in-place migration: %v", err)
	}
	write(t, m3.To, `{"mode": "readonly"}`)
	if err := m3.Write(false); !errors.Is(err, jsonedit.ErrChanged) {
		t.Fatalf("want ErrChanged, got %v", err)
	}
}
