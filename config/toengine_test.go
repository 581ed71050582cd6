package config

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/catalog"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
)

// TestToEngineAllocs: an extension's tools and commands are converted into slices sized
// once (one allocation each), not grown by append through every doubling.
func TestToEngineAllocs(t *testing.T) {
	shipped, err := catalog.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for i := range shipped {
		e := &shipped[i]
		src := diag.NewSource(e.File, e.Src)
		want := 0.0
		if len(e.Tools) > 0 {
			want++
		}
		if len(e.Commands) > 0 {
			want++
		}
		var out engine.Extension
		n := testing.AllocsPerRun(20, func() { out = toEngine(e, src, engine.Source{Kind: engine.KindToolset, Name: e.Name, File: e.File}) })
		if n != want {
			t.Errorf("%s (%d tools, %d commands): %v allocations, want %v", e.File, len(e.Tools), len(e.Commands), n, want)
		}
		if len(out.Tools) != len(e.Tools) || len(out.Commands) != len(e.Commands) {
			t.Errorf("%s: %d tools and %d commands, want %d and %d", e.File, len(out.Tools), len(out.Commands), len(e.Tools), len(e.Commands))
		}
	}
}
