package config

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLeavesInsideCombinedElements: a value inside an element of an appended array reports the
// array's rule, and the file it came from.
func TestLeavesInsideCombinedElements(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), `{"personalExtensions": {"disabledTools": ["a", {"tools": ["b"]}]}}`)
	write(t, filepath.Join(proj, ".pi", "settings.json"), `{"personalExtensions": {"disabledTools": [{"tools": ["c"], "models": ["m"]}]}}`)
	e, err := load(t, home, proj, ptr(true)).Effective(Settings)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range e.Leaves() {
		got = append(got, l.Path+" "+l.Rule+" "+filepath.Base(filepath.Dir(l.Value.File.Path)))
	}
	want := []string{
		"personalExtensions.disabledTools[0] append agent",
		"personalExtensions.disabledTools[1].tools[0] append agent",
		"personalExtensions.disabledTools[2].tools[0] append .pi",
		"personalExtensions.disabledTools[2].models[0] append .pi",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
}
