package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Rewind restores a modified file, deletes a created one, refuses one changed by something
// else after the agent's write, and keeps its images on disk when given a directory.
func TestRewindPlanAndApply(t *testing.T) {
	for _, dir := range []string{"", "disk"} {
		t.Run("dir="+dir, func(t *testing.T) {
			ws := t.TempDir()
			if dir != "" {
				dir = filepath.Join(t.TempDir(), "s.rewind")
			}
			rw := New(dir)
			mod, created, foreign := filepath.Join(ws, "mod.txt"), filepath.Join(ws, "new.txt"), filepath.Join(ws, "foreign.txt")
			write(t, mod, "v1")
			write(t, foreign, "f1")
			rw.Begin("leaf0", "first prompt")
			for _, c := range []struct{ path, content string }{{mod, "v2"}, {created, "n"}, {foreign, "f2"}} {
				if err := rw.Before(c.path); err != nil {
					t.Fatal(err)
				}
				write(t, c.path, c.content)
				rw.After(c.path)
			}
			rw.Begin("leaf1", "second prompt")
			if err := rw.Before(mod); err != nil {
				t.Fatal(err)
			}
			write(t, mod, "v3")
			rw.After(mod)
			write(t, foreign, "edited by the person") // outside the session
			p := rw.Points()[1]
			if p.Text != "first prompt" {
				t.Fatalf("points %+v", rw.Points())
			}
			plan := rw.Plan(p)
			want := []Restore{
				{Path: foreign, Refused: "changed outside this session since"},
				{Path: mod},
				{Path: created, Delete: true},
			}
			if len(plan) != len(want) {
				t.Fatalf("plan %+v", plan)
			}
			for i, w := range want {
				if plan[i].Path != w.Path || plan[i].Refused != w.Refused || plan[i].Delete != w.Delete {
					t.Fatalf("plan[%d] = %+v, want %+v", i, plan[i], w)
				}
			}
			if err := rw.Apply(p, plan); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(mod); string(b) != "v1" {
				t.Fatalf("mod.txt = %q", b)
			}
			if _, err := os.Stat(created); !os.IsNotExist(err) {
				t.Fatalf("new.txt still exists: %v", err)
			}
			if b, _ := os.ReadFile(foreign); string(b) != "edited by the person" {
				t.Fatalf("the person's edit was reverted: %q", b)
			}
			if len(rw.Points()) != 0 {
				t.Fatalf("points left: %+v", rw.Points())
			}
			if dir != "" {
				again := New(dir)
				if len(again.Points()) != 0 {
					t.Fatalf("a reopened store has points %+v", again.Points())
				}
				b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
				if err != nil || !strings.Contains(string(b), `"points":[]`) {
					t.Fatalf("manifest %s, %v", b, err)
				}
			}
		})
	}
}

// A continued session's chat reads the manifest back and can still restore.
func TestRewindReopened(t *testing.T) {
	ws, dir := t.TempDir(), filepath.Join(t.TempDir(), "s.rewind")
	f := filepath.Join(ws, "a.txt")
	write(t, f, "v1")
	rw := New(dir)
	rw.Begin("leaf0", "edit a")
	if err := rw.Before(f); err != nil {
		t.Fatal(err)
	}
	write(t, f, "v2")
	rw.After(f)
	again := New(dir)
	pts := again.Points()
	if len(pts) != 1 || pts[0].Text != "edit a" {
		t.Fatalf("points %+v", pts)
	}
	if err := again.Apply(pts[0], again.Plan(pts[0])); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f); string(b) != "v1" {
		t.Fatalf("a.txt = %q", b)
	}
	again.Begin("leaf1", "next")
	if again.Points()[0].Seq <= pts[0].Seq {
		t.Fatalf("sequence numbers restart: %+v", again.Points())
	}
}

// Switch drops the points of the session left behind and reads the new session's manifest.
func TestRewindSwitch(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a.rewind"), filepath.Join(t.TempDir(), "b.rewind")
	ws := t.TempDir()
	f := filepath.Join(ws, "f.txt")
	rb := New(b)
	rb.Begin("leafB", "in b")
	if err := rb.Before(f); err != nil {
		t.Fatal(err)
	}
	write(t, f, "x")
	rb.After(f)
	rw := New(a)
	rw.Begin("leafA", "in a")
	rw.Switch(b)
	if pts := rw.Points(); len(pts) != 1 || pts[0].Text != "in b" {
		t.Fatalf("points after the switch %+v", pts)
	}
	rw.Switch(filepath.Join(t.TempDir(), "new.rewind"))
	if pts := rw.Points(); len(pts) != 0 {
		t.Fatalf("points in a new session %+v", pts)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
