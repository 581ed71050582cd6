package tui

import "testing"

// BenchmarkLoad measures one reload (load, resolve, check, sandbox policy, file stamps): the
// work behind every toggle, re-check and watched change.
func BenchmarkLoad(b *testing.B) {
	f := newFixture(b)
	o := f.options()
	for b.Loop() {
		if s := load(o, ""); s.res == nil {
			b.Fatal("no resolution")
		}
	}
}
