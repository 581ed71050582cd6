package config

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCatalogueASCII: every string of the catalogue is ASCII, which foldKey's length test
// relies on.
func TestCatalogueASCII(t *testing.T) {
	for i, r := range builtinModels() {
		for _, s := range []string{r.provider.str(), r.id.str(), r.api.str(), r.baseURL.str()} {
			for j := 0; j < len(s); j++ {
				if s[j] >= utf8.RuneSelf {
					t.Fatalf("catalogue row %d: %q is not ASCII", i, s)
				}
			}
		}
	}
}

// TestFoldKeyAsEqualFold: foldKey.eq answers strings.EqualFold for every catalogue id and
// provider against texts equal to them under folding (cases flipped, 'k' and 's' written as
// U+212A and U+017F), one rune longer or shorter, and random ASCII and non-ASCII texts.
func TestFoldKeyAsEqualFold(t *testing.T) {
	rows := builtinModels()
	r := rand.New(rand.NewPCG(25, 35))
	flip := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			switch {
			case (c == 'k' || c == 'K') && r.IntN(3) == 0:
				b.WriteRune('\u212a')
			case (c == 's' || c == 'S') && r.IntN(3) == 0:
				b.WriteRune('\u017f')
			case c >= 'a' && c <= 'z' && r.IntN(2) == 0:
				b.WriteRune(c - 32)
			case c >= 'A' && c <= 'Z' && r.IntN(2) == 0:
				b.WriteRune(c + 32)
			default:
				b.WriteRune(c)
			}
		}
		return b.String()
	}
	var queries []string
	for range 150 {
		row := &rows[r.IntN(len(rows))]
		for _, s := range []string{row.id.str(), row.provider.str()} {
			queries = append(queries, s, flip(s), flip(s), s+"x", s[:len(s)-1], "é"+s[1:], strings.ToUpper(s))
		}
	}
	queries = append(queries, "", "k", "\u212a", "s", "\u017f", "ſonnet", "claude-ſonnet-4-5", "zhipu/glm-4.6", "ÉÉ")
	eq, tried := 0, 0
	for _, q := range queries {
		k := newFoldKey(q)
		for i := range rows {
			for _, c := range []catalogueStr{rows[i].id, rows[i].provider} {
				want := strings.EqualFold(c.str(), q)
				if got := k.eq(c); got != want {
					t.Fatalf("eq(%q, %q) = %v, EqualFold says %v", c.str(), q, got, want)
				}
				tried++
				if want {
					eq++
				}
			}
		}
	}
	if eq < 1000 {
		t.Fatalf("only %d of %d comparisons were equal: the queries miss the point", eq, tried)
	}
}

// TestModelIndexProviders: the model index lists the catalogue's providers as adding each
// row's provider in turn does (first spelling of each, in catalogue order).
func TestModelIndexProviders(t *testing.T) {
	c := &Config{}
	got := c.modelIndex().providers
	var want []string
	seen := map[string]bool{}
	for _, r := range builtinModels() {
		if p := r.provider.str(); !seen[strings.ToLower(p)] {
			seen[strings.ToLower(p)] = true
			want = append(want, p)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("providers %v, want %v", got, want)
	}
}
