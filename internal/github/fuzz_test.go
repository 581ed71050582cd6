package github

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseDiff: any text parses without a panic, and the totals are the sums of the files.
func FuzzParseDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
	f.Add("diff --git \"a/a b\" \"b/a b\"\nBinary files differ\n")
	f.Add("diff --git a/x b/y\n+++ /dev/null\n")
	f.Fuzz(func(t *testing.T, s string) {
		files, add, del := ParseDiff(s)
		a, d := 0, 0
		for _, x := range files {
			a += x.Additions
			d += x.Deletions
		}
		if a != add || d != del {
			t.Fatalf("totals %d/%d, files sum %d/%d", add, del, a, d)
		}
	})
}

// FuzzStepSpans: spans stay inside the log and never run backwards.
func FuzzStepSpans(f *testing.F) {
	f.Add("2026-11-03T10:01:02.5Z ##[group]Run x\n##[endgroup]\nout\n", "Run x")
	f.Add("##[group]Run a\n##[group]Run b\n##[endgroup]\n##[endgroup]\n", "Set up job")
	f.Fuzz(func(t *testing.T, log, name string) {
		start := time.Date(2026, 11, 3, 10, 1, 2, 0, time.UTC)
		steps := []StepRef{{Number: 1, Name: "Set up job"}, {Number: 2, Name: name, StartedAt: &start}, {Number: 3, Name: "Run x"}}
		n := len(strings.Split(log, "\n"))
		for k, sp := range StepSpans(log, steps) {
			if sp[0] < 0 || sp[1] < sp[0] || sp[1] > n {
				t.Fatalf("step %d span %v outside %d lines", k, sp, n)
			}
		}
	})
}
