package engine

import (
	"slices"
	"strings"
	"unicode"
)

// FuzzyScore reports whether query fuzzy-matches text (case-insensitive subsequence) and its
// score, lower being better: consecutive runs and matches at word starts (after whitespace,
// `-`, `_`, `.`, `/`, `:`) lower it; gaps and late positions raise it.
func FuzzyScore(query, text string) (bool, float64) {
	q := []rune(strings.ToLower(query))
	t := []rune(strings.ToLower(text))
	if len(q) == 0 {
		return true, 0
	}
	if len(q) > len(t) {
		return false, 0
	}
	qi, last, run := 0, -1, 0
	score := 0.0
	for i := 0; i < len(t) && qi < len(q); i++ {
		if t[i] != q[qi] {
			continue
		}
		if last == i-1 {
			run++
			score -= float64(run * 5)
		} else {
			run = 0
			if last >= 0 {
				score += float64((i - last - 1) * 2)
			}
		}
		if i == 0 || unicode.IsSpace(t[i-1]) || strings.ContainsRune("-_./:", t[i-1]) {
			score -= 10
		}
		score += float64(i) * 0.1
		last = i
		qi++
	}
	if qi < len(q) {
		return false, 0
	}
	return true, score
}

// FuzzyFilter returns the items whose text (given by text) matches every token of query
// (split on whitespace and `/`), best first; ties keep their input order. An empty query
// returns every item.
func FuzzyFilter[T any](items []T, query string, text func(T) string) []T {
	tokens := strings.FieldsFunc(query, func(r rune) bool { return unicode.IsSpace(r) || r == '/' })
	if len(tokens) == 0 {
		return slices.Clone(items)
	}
	type scored struct {
		item  T
		score float64
	}
	var hits []scored
	for _, it := range items {
		s := text(it)
		total, all := 0.0, true
		for _, tok := range tokens {
			ok, sc := FuzzyScore(tok, s)
			if !ok {
				all = false
				break
			}
			total += sc
		}
		if all {
			hits = append(hits, scored{it, total})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return 0
	})
	out := make([]T, len(hits))
	for i, h := range hits {
		out[i] = h.item
	}
	return out
}
