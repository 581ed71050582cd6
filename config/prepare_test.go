package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/aft"
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

// TestResolvingFindsAFTAsBefore: with Options.Resolving, Load searches for the aft binary on
// another goroutine while it reads the files; AFT and the resolution then answer what the
// search at resolution time answers, with an aft binary installed and without one.
func TestResolvingFindsAFTAsBefore(t *testing.T) {
	for _, installed := range []bool{true, false} {
		agent, home := t.TempDir(), t.TempDir()
		if installed {
			bin := filepath.Join(agent, "npm", "node_modules", filepath.FromSlash(aft.PlatformPackage()), "bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, "aft"), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		load := func(resolving bool) (*config.AFTSetup, string) {
			approve := true
			cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: t.TempDir(), Approve: &approve, Home: home,
				Getenv: func(string) string { return "" }, Resolving: resolving})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cfg.Resolve(config.ResolveOptions{Model: "zhipu/glm-4.6"})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools.Tools {
				names = append(names, tool.Name+"="+string(tool.State))
			}
			return cfg.AFT(), strings.Join(names, " ")
		}
		want, wantTools := load(false)
		got, gotTools := load(true)
		if want.Found != installed {
			t.Fatalf("installed %v: found %v (%+v)", installed, want.Found, want)
		}
		if !reflect.DeepEqual(got, want) || gotTools != wantTools {
			t.Fatalf("installed %v: with Resolving %+v\n%s\nwithout %+v\n%s", installed, got, gotTools, want, wantTools)
		}
	}
}
