package engine

import (
	"github.com/pigo-agent/pigo/internal/diag"
	"math/rand/v2"
	"strings"
	"testing"
)

func collapseFields(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestCollapseAsFields: collapse gives strings.Join(strings.Fields(s), " ") on random texts of
// words, ASCII and Unicode spaces, control bytes and invalid UTF-8; TrimSpace(s) != "" says
// whether it is empty.
func TestCollapseAsFields(t *testing.T) {
	parts := []string{"read", "a", "Find files", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\x01", "\u0085", "\u00a0",
		"\u2003", "\u3000", "é", "→", "\xff", "\xe2\x80", ".", ""}
	r := rand.New(rand.NewPCG(25, 35))
	for range 50000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		if got, want := collapse(s), collapseFields(s); got != want {
			t.Fatalf("collapse(%q) = %q, want %q", s, got, want)
		}
		if got, want := strings.TrimSpace(s) != "", collapseFields(s) != ""; got != want {
			t.Fatalf("TrimSpace(%q) != \"\" is %v, collapse says %v", s, got, want)
		}
	}
}

func TestCollapseAllocs(t *testing.T) {
	s := "Read the contents of a file, with line numbers"
	if n := testing.AllocsPerRun(10, func() { _ = collapse(s) }); n != 0 {
		t.Errorf("collapse allocates %v times on a collapsed text", n)
	}
}

func FuzzCollapse(f *testing.F) {
	f.Add("a  b\tc\u00a0d")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapse(s), collapseFields(s); got != want {
			t.Fatalf("collapse(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestSpanPosAsPos: spanPos gives sp.Pos() for every offset of random texts (LF, CRLF, CR,
// empty lines, multibyte), past their end, without a text, without a source, and beyond the
// counted prefix.
func TestSpanPosAsPos(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 35))
	pieces := []string{"a", "bc", "\n", "\r\n", "\r", "\n\n", "é", "→", "when: which(\"gh\")", "    "}
	for n := range 300 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if n%50 == 0 {
			b.WriteString(strings.Repeat("x\n", 20000)) // past the counted prefix
		}
		src := diag.NewSource("f", []byte(b.String()))
		for off := -1; off <= b.Len()+2; off += 1 + off/97 {
			sp := diag.At(src, off, off)
			if gl, gc := spanPos(sp); true {
				if wl, wc := sp.Pos(); gl != wl || gc != wc {
					t.Fatalf("spanPos at %d of %q = %d:%d, Pos says %d:%d", off, b.String()[:min(len(b.String()), 80)], gl, gc, wl, wc)
				}
			}
		}
	}
	for _, sp := range []diag.Span{{}, diag.At(diag.NewSource("f", nil), 0, 0), diag.At(diag.NewSource("f", nil), 5, 6), diag.FileSpan(diag.NewSource("f", []byte("a\nb")))} {
		if gl, gc := spanPos(sp); true {
			if wl, wc := sp.Pos(); gl != wl || gc != wc {
				t.Fatalf("spanPos(%+v) = %d:%d, Pos says %d:%d", sp, gl, gc, wl, wc)
			}
		}
	}
}
