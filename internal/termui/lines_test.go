package termui

import (
	"strings"
	"testing"
)

func TestDoubt(t *testing.T) {
	for s, want := range map[string]int{
		"plain ascii": 0, "中文": 0, "é": 0, "e\u0301": 0, "👨\u200d👩\u200d👧": 0, "🇫🇷": 0,
		"👍🏽": 2, "☺️": 1, "a👍🏽b👍🏽": 4,
	} {
		if got := Doubt(s); got != want {
			t.Errorf("Doubt(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestFit(t *testing.T) {
	if got := Fit("abc", 5); got != "abc  " {
		t.Errorf("pad: %q", got)
	}
	if got := Fit("abcdef", 4); got != "abcd" {
		t.Errorf("cut: %q", got)
	}
	// A skin-toned hand leaves two columns free so the terminal never wraps the line.
	if got := Fit("👍🏽"+strings.Repeat("x", 20), 10); Width(got) != 8 {
		t.Errorf("doubt: %q is %d wide", got, Width(got))
	}
	if got := Fit("\x1b[1mbold\x1b[0m", 6); Width(got) != 6 || !strings.Contains(got, "\x1b[1m") {
		t.Errorf("styled: %q", got)
	}
}
