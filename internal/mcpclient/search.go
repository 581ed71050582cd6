package mcpclient

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// SearchDoc is one tool as tool_search ranks it (pi 1.6's createToolSearchDocument): its name,
// its description with the descriptions and property names of its schema, and its server's
// namespace name, description and instructions.
type SearchDoc struct {
	Name          string
	Text          string
	NamespaceText string
	Description   string
}

// NewSearchDoc builds the document of a tool.
func NewSearchDoc(name, description string, parameters json.RawMessage, namespace, nsDescription, nsInstructions string) SearchDoc {
	parts := []string{description}
	var root any
	_ = json.Unmarshal(parameters, &root)
	seen := map[any]bool{}
	schemaText(root, root, &parts, seen)
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	ns := ""
	if namespace != "" {
		ns = strings.Join([]string{namespace, nsDescription, nsInstructions}, " ")
	}
	return SearchDoc{Name: name, Text: strings.Join(kept, " "), NamespaceText: ns, Description: description}
}

// schemaText collects descriptions and property names, following local $refs once.
func schemaText(schema, root any, parts *[]string, seen map[any]bool) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		if t := resolveRef(ref, root); t != nil {
			key := ref
			if !seen[key] {
				seen[key] = true
				schemaText(t, root, parts, seen)
			}
		}
	}
	if d, ok := m["description"].(string); ok {
		*parts = append(*parts, d)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		// JavaScript keeps insertion order; Go maps do not, so names are taken sorted (the
		// ranking uses term counts, not positions).
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			*parts = append(*parts, n)
			schemaText(props[n], root, parts, seen)
		}
	}
	schemaText(m["items"], root, parts, seen)
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[k].([]any); ok {
			for _, v := range list {
				schemaText(v, root, parts, seen)
			}
		}
	}
}

func resolveRef(ref string, root any) any {
	if ref == "#" {
		return root
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := root
	for _, seg := range strings.Split(ref[2:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	return cur
}

var stopWords = map[string]bool{"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"for": true, "from": true, "in": true, "is": true, "it": true, "of": true, "on": true, "or": true, "that": true, "the": true,
	"this": true, "to": true, "with": true}

var (
	lowerUpperRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`([a-z0-9])([A-Z])`) }}
	upperRunRe   = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`) }}
	asciiWordRe  = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+$`) }}
	stemXesRe    = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(ches|shes|sses|xes|zes)$`) }}
)

// stem is pi's naive singular form.
func stem(t string) string {
	switch {
	case len(t) > 4 && strings.HasSuffix(t, "ies"):
		return t[:len(t)-3] + "y"
	case len(t) > 4 && stemXesRe.Get().MatchString(t):
		return t[:len(t)-2]
	case len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss"):
		return t[:len(t)-1]
	}
	return t
}

// Tokenize is pi's tokenize: identifier boundaries, lower case, letters and digits only,
// English stop words dropped, ASCII words singular.
func Tokenize(text string) []string {
	s := norm.NFC.String(text)
	s = lowerUpperRe.Get().ReplaceAllString(s, "$1 $2")
	s = upperRunRe.Get().ReplaceAllString(s, "$1 $2")
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	var out []string
	for _, w := range strings.Split(b.String(), " ") {
		if w == "" || stopWords[w] {
			continue
		}
		if asciiWordRe.Get().MatchString(w) {
			w = stem(w)
		}
		out = append(out, w)
	}
	return out
}

// SearchHit is one ranked tool.
type SearchHit struct {
	Name  string
	Score float64
}

// Rank is pi's Bm25Ranker.rank: tools covering more query terms first, a term in the name worth
// more than any number of mentions, a query that is exactly a tool's name first of all.
func Rank(query string, docs []SearchDoc, limit int) []SearchHit {
	const k1, b, nameWeight, namespaceWeight = 1.2, 0.75, 3.0, 0.5
	qterms := unique(Tokenize(query))
	if len(qterms) == 0 || len(docs) == 0 || limit <= 0 {
		return nil
	}
	type indexed struct {
		name       string
		nameTerms  map[string]bool
		localTerms []string
		counts     map[string]int
		length     int
		nsTerms    map[string]bool
	}
	idx := make([]indexed, len(docs))
	total := 0
	for i, d := range docs {
		x := indexed{name: d.Name, nameTerms: set(Tokenize(d.Name)), counts: map[string]int{}, nsTerms: set(Tokenize(d.NamespaceText))}
		segs := strings.Split(d.Name, "__")
		x.localTerms = unique(Tokenize(segs[len(segs)-1]))
		for _, t := range Tokenize(d.Text) {
			x.counts[t]++
			x.length++
		}
		total += x.length
		idx[i] = x
	}
	avg := float64(total) / float64(len(idx))
	if avg == 0 {
		avg = 1
	}
	idf := map[string]float64{}
	bonus := 0.0
	for _, t := range qterms {
		f := 0
		for _, x := range idx {
			if x.nameTerms[t] || x.counts[t] > 0 || x.nsTerms[t] {
				f++
			}
		}
		idf[t] = math.Log(1 + (float64(len(idx))-float64(f)+0.5)/(float64(f)+0.5))
		bonus += idf[t]
	}
	qset := set(qterms)
	exact := normalizeName(query)
	type match struct {
		name    string
		score   float64
		covered int
		exact   bool
		order   int
	}
	var ms []match
	for i, x := range idx {
		normLen := k1 * (1 - b + b*float64(x.length)/avg)
		score, covered := 0.0, 0
		for _, t := range qterms {
			c := float64(x.counts[t])
			w := c * (k1 + 1) / (c + normLen)
			if x.nameTerms[t] {
				w += nameWeight
			}
			if x.nsTerms[t] {
				w += namespaceWeight
			}
			if w > 0 {
				covered++
			}
			score += idf[t] * w
		}
		if score == 0 {
			continue
		}
		if len(x.localTerms) > 0 {
			all := true
			for _, t := range x.localTerms {
				all = all && qset[t]
			}
			if all {
				score += bonus
			}
		}
		n := normalizeName(x.name)
		ms = append(ms, match{name: x.name, score: score, covered: covered, exact: n == exact || strings.HasSuffix(n, "__"+exact), order: i})
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, c := ms[i], ms[j]
		if a.exact != c.exact {
			return a.exact
		}
		if a.covered != c.covered {
			return a.covered > c.covered
		}
		return a.score > c.score
	})
	if len(ms) > limit {
		ms = ms[:limit]
	}
	out := make([]SearchHit, len(ms))
	for i, m := range ms {
		out[i] = SearchHit{Name: m.name, Score: m.score}
	}
	return out
}

func normalizeName(s string) string {
	b := []byte(strings.ToLower(strings.TrimSpace(s)))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '$') {
			b[i] = '_'
		}
	}
	return string(b)
}

func unique(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
