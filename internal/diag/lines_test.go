package diag

import (
	"slices"
	"testing"
)

// lineStartsLoop is the byte loop lineStarts replaced.
func lineStartsLoop(text []byte) []int {
	lines := []int{0}
	for i, b := range text {
		if b == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}

func FuzzLineStarts(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\n", "\n\n", "a\r\nb\nc", "x\n\ny\n", "\xff\n\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := NewSource("f", []byte(text))
		if got, want := s.lineStarts(), lineStartsLoop([]byte(text)); !slices.Equal(got, want) {
			t.Errorf("lineStarts(%q) = %v, the byte loop says %v", text, got, want)
		}
	})
}
