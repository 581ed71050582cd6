package pkgs

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// The npm version rules pi applies to `npm:name@VERSION` (node-semver's valid, validRange and
// satisfies), reduced to what deciding "the installed copy matches the declaration" needs:
// exact versions, x-ranges, ^ ~ comparators, hyphen ranges and || alternatives. A version that
// is none of these (a dist-tag such as "latest") is not a range: any installed version matches.

var semverRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^[=v]*(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$`)
}}

type version struct {
	major, minor, patch int
	pre                 string
}

func parseVersion(s string) (version, bool) {
	m := semverRe.Get().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return version{}, false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	c, _ := strconv.Atoi(m[3])
	return version{a, b, c, m[4]}, true
}

// ExactVersion reports whether v is one exact version (node-semver's valid): such a
// declaration is pinned and never updated.
func ExactVersion(v string) bool {
	_, ok := parseVersion(v)
	return ok
}

func (v version) cmp(w version) int {
	for _, d := range []int{v.major - w.major, v.minor - w.minor, v.patch - w.patch} {
		if d != 0 {
			if d < 0 {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.pre == w.pre:
		return 0
	case v.pre == "":
		return 1
	case w.pre == "":
		return -1
	}
	return comparePre(v.pre, w.pre)
}

func comparePre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		ai, aerr := strconv.Atoi(as[i])
		bi, berr := strconv.Atoi(bs[i])
		switch {
		case aerr == nil && berr == nil:
			if ai != bi {
				if ai < bi {
					return -1
				}
				return 1
			}
		case aerr == nil:
			return -1
		case berr == nil:
			return 1
		case as[i] != bs[i]:
			if as[i] < bs[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(as) < len(bs):
		return -1
	case len(as) > len(bs):
		return 1
	}
	return 0
}

// comparator is one `op version` test.
type comparator struct {
	op string
	v  version
}

func (c comparator) test(v version) bool {
	d := v.cmp(c.v)
	switch c.op {
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	}
	return d == 0
}

// partial is a version with missing or x parts: 1, 1.2, 1.x, *.
type partial struct {
	parts []int // -1 for x
	pre   string
}

var partialRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^[=v]*(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$`)
}}

func parsePartial(s string) (partial, bool) {
	if s == "" {
		return partial{parts: []int{-1, -1, -1}}, true
	}
	m := partialRe.Get().FindStringSubmatch(s)
	if m == nil {
		return partial{}, false
	}
	p := partial{pre: m[4]}
	for _, x := range m[1:4] {
		switch x {
		case "":
			p.parts = append(p.parts, -1)
		case "x", "X", "*":
			p.parts = append(p.parts, -1)
		default:
			n, _ := strconv.Atoi(x)
			p.parts = append(p.parts, n)
		}
	}
	// Once a part is x, the following parts are too.
	for i := 1; i < 3; i++ {
		if p.parts[i-1] < 0 {
			p.parts[i] = -1
		}
	}
	return p, true
}

func (p partial) floor() version {
	v := version{pre: p.pre}
	set := []*int{&v.major, &v.minor, &v.patch}
	for i, n := range p.parts {
		if n > 0 {
			*set[i] = n
		}
	}
	return v
}

// xRange turns a partial into comparators: 1.2 → >=1.2.0 <1.3.0-0.
func (p partial) xRange() []comparator {
	switch {
	case p.parts[0] < 0:
		return nil
	case p.parts[1] < 0:
		return []comparator{{">=", p.floor()}, {"<", version{p.parts[0] + 1, 0, 0, "0"}}}
	case p.parts[2] < 0:
		return []comparator{{">=", p.floor()}, {"<", version{p.parts[0], p.parts[1] + 1, 0, "0"}}}
	}
	return []comparator{{"=", p.floor()}}
}

func caret(p partial) []comparator {
	lo := p.floor()
	var hi version
	switch {
	case p.parts[0] < 0:
		return nil
	case p.parts[0] > 0 || p.parts[1] < 0:
		hi = version{p.parts[0] + 1, 0, 0, "0"}
	case p.parts[1] > 0 || p.parts[2] < 0:
		hi = version{0, p.parts[1] + 1, 0, "0"}
	default:
		hi = version{0, 0, p.parts[2] + 1, "0"}
	}
	return []comparator{{">=", lo}, {"<", hi}}
}

func tilde(p partial) []comparator {
	lo := p.floor()
	switch {
	case p.parts[0] < 0:
		return nil
	case p.parts[1] < 0:
		return []comparator{{">=", lo}, {"<", version{p.parts[0] + 1, 0, 0, "0"}}}
	}
	return []comparator{{">=", lo}, {"<", version{p.parts[0], p.parts[1] + 1, 0, "0"}}}
}

var opRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(>=|<=|>|<|=|\^|~>?)?\s*(.*)$`) }}

// parseRange parses an npm range into alternatives of comparator sets; ok is false when the
// text is not a range (a dist-tag).
func parseRange(r string) ([][]comparator, bool) {
	var out [][]comparator
	for _, alt := range strings.Split(r, "||") {
		alt = strings.TrimSpace(alt)
		var set []comparator
		if lo, hi, ok := strings.Cut(alt, " - "); ok {
			pl, ok1 := parsePartial(strings.TrimSpace(lo))
			ph, ok2 := parsePartial(strings.TrimSpace(hi))
			if !ok1 || !ok2 {
				return nil, false
			}
			set = append(set, comparator{">=", pl.floor()})
			if hr := ph.xRange(); len(hr) == 1 {
				set = append(set, comparator{"<=", hr[0].v})
			} else if len(hr) == 2 {
				set = append(set, hr[1])
			}
			out = append(out, set)
			continue
		}
		// "> 1.2" is one comparator: join an operator with the version after it.
		fields := strings.Fields(alt)
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			if strings.Trim(f, "<>=^~") == "" && i+1 < len(fields) {
				f += fields[i+1]
				i++
			}
			m := opRe.Get().FindStringSubmatch(f)
			p, ok := parsePartial(m[2])
			if !ok {
				return nil, false
			}
			switch op := m[1]; op {
			case "^":
				set = append(set, caret(p)...)
			case "~", "~>":
				set = append(set, tilde(p)...)
			case "", "=":
				set = append(set, p.xRange()...)
			default:
				set = append(set, comparator{op, p.floor()})
			}
		}
		out = append(out, set)
	}
	return out, true
}

// Satisfies reports whether installed satisfies the declared version of an npm source: always
// for no version or a dist-tag, else by npm's range rules (prereleases compared plainly).
func Satisfies(installed, declared string) bool {
	if strings.TrimSpace(declared) == "" {
		return true
	}
	v, ok := parseVersion(installed)
	if !ok {
		return false
	}
	alts, ok := parseRange(declared)
	if !ok {
		return true
	}
	for _, set := range alts {
		all := true
		for _, c := range set {
			if !c.test(v) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
