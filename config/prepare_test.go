package config_test

import (
	"encoding/json"
	"testing"

	"github.com/pigo-agent/pigo/config"
)

// TestPrepareDuringResolve: config.Prepare on another goroutine while the examples load and
// resolve (as `pigo tools` and a session start run it) leaves the resolution as it is without
// it. Under -race this also checks the per-process caches it fills are shared safely.
func TestPrepareDuringResolve(t *testing.T) {
	resolve := func(prepare bool) string {
		done := make(chan struct{})
		if prepare {
			go func() { config.Prepare(); close(done) }()
		} else {
			close(done)
		}
		res, err := loadExamples(t).Resolve(config.ResolveOptions{Model: "zhipu/glm-4.6"})
		<-done
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(struct{ Tools, Commands any }{res.Tools, res.Commands})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := resolve(true) // the caches are empty only here (unless another test ran first)
	want := resolve(false)
	if first != want {
		t.Fatalf("with Prepare at the same time:\n%s\nwithout:\n%s", first, want)
	}
	for range 3 {
		if got := resolve(true); got != want {
			t.Fatalf("with Prepare:\n%s\nwant:\n%s", got, want)
		}
	}
}
