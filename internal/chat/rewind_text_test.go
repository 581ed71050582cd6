package chat

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/rewind"
)

func TestPlanText(t *testing.T) {
	p := rewind.Point{Text: "first prompt\nmore"}
	got := PlanText(p, []rewind.Restore{{Path: "/w/f", Refused: "changed outside this session since"}, {Path: "/w/m"}, {Path: "/w/n", Delete: true}})
	want := "Rewind to before: first prompt …\n\nThe conversation goes back to before this prompt.\nFiles:\n" +
		"  skip     /w/f (changed outside this session since)\n" +
		"  restore  /w/m\n" +
		"  delete   /w/n (created since)"
	if got != want {
		t.Fatalf("preview\n%s\nwant\n%s", got, want)
	}
	if got := PlanText(p, nil); got != "Rewind to before: first prompt …\n\nThe conversation goes back to before this prompt.\nNo files to restore." {
		t.Fatalf("empty plan: %q", got)
	}
}
