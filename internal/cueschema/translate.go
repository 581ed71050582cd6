package cueschema

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/validate"
)

var (
	reOutOfBound = regexp.MustCompile(`^invalid value (.*) \(out of bound (.*)\)$`)
	reNoMatch    = regexp.MustCompile(`^invalid value (.*) \(does not match (=~|!~)(.*)\)$`)
	reConflict   = regexp.MustCompile(`^conflicting values (.*) and (.*) \(mismatched types (\w+) and (\w+)\)$`)
	reConflict2  = regexp.MustCompile(`^conflicting values (.*) and (.*)$`)
	reIncomplete = regexp.MustCompile(`^incomplete value (.*)$`)
	reNotAllowed = regexp.MustCompile(`^field not allowed$`)
	reDisj       = regexp.MustCompile(`^\d+ errors in empty disjunction:?.*$`)
	rePathPrefix = regexp.MustCompile(`^(#[A-Za-z0-9_]+\.)?[^ :]*: `)
)

// Translate turns one CUE validation error about a single value into pigo's wording. got is
// the offending value as the user wrote it.
func Translate(err error, got string) string {
	if err == nil {
		return ""
	}
	errs := cueerrors.Errors(err)
	if len(errs) == 0 {
		return cleanMsg(err.Error(), got)
	}
	var msgs []string
	for _, e := range errs {
		f, a := e.Msg()
		msgs = append(msgs, cleanMsg(fmt.Sprintf(f, a...), got))
	}
	// A failed disjunction has a header ("2 errors in empty disjunction") and one error per
	// branch: keep the branch messages, once each.
	var out []string
	for _, m := range msgs {
		if reDisj.MatchString(m) || m == "" {
			continue
		}
		if !contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return "invalid value " + got
	}
	// A default literal beside a general branch (*0 | int & <=3) adds "expected 0": the general
	// branch's error says more, so keep only that when there is one.
	var general []string
	for _, m := range out {
		if !strings.HasPrefix(m, "expected ") {
			general = append(general, m)
		}
	}
	if len(general) > 0 {
		out = general
	}
	return strings.Join(out, "; or ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func cleanMsg(m, got string) string {
	m = strings.TrimSpace(rePathPrefix.ReplaceAllString(m, ""))
	if s := reOutOfBound.FindStringSubmatch(m); s != nil {
		// CUE calls every failed bound "out of bound", patterns and != included.
		switch b := s[2]; {
		case b == `!=""`:
			return "must not be empty"
		case strings.HasPrefix(b, "=~"):
			return fmt.Sprintf("%s does not match the pattern %s", s[1], b[2:])
		case strings.HasPrefix(b, "!~"):
			return fmt.Sprintf("%s must not match %s", s[1], b[2:])
		case strings.HasPrefix(b, "!="):
			return fmt.Sprintf("must not be %s", b[2:])
		}
		return fmt.Sprintf("%s is out of range (must be %s)", s[1], s[2])
	}
	if s := reNoMatch.FindStringSubmatch(m); s != nil {
		if s[2] == "!~" {
			return fmt.Sprintf("%s must not match %s", s[1], s[3])
		}
		return fmt.Sprintf("%s does not match the pattern %s", s[1], s[3])
	}
	if s := reConflict.FindStringSubmatch(m); s != nil {
		// CUE names the two sides in either order: the expected kind is the other side's.
		want := s[4]
		if s[2] == got && s[1] != got {
			want = s[3]
		}
		return fmt.Sprintf("expected %s, got %s", validate.Article(want), got)
	}
	if s := reConflict2.FindStringSubmatch(m); s != nil {
		return fmt.Sprintf("expected %s, got %s", s[1], s[2])
	}
	if s := reIncomplete.FindStringSubmatch(m); s != nil {
		return "missing value (expected " + s[1] + ")"
	}
	if reNotAllowed.MatchString(m) {
		return "unknown field"
	}
	return m
}

// Errors translates a whole-document CUE error (from unifying a CUE declaration file with a
// definition) into diagnostics. The position of each error is the first of its positions that
// lies in the data file (never the schema's), else the file itself.
func Errors(err error, src *diag.Source) diag.List {
	var out diag.List
	if err == nil {
		return out
	}
	disj := map[string]bool{}
	for _, e := range cueerrors.Errors(err) {
		f, a := e.Msg()
		msg := fmt.Sprintf(f, a...)
		path := joinCUEPath(stripDef(e.Path()))
		if reDisj.MatchString(msg) {
			disj[path] = true
			continue
		}
		sp := diag.FileSpan(src)
		for _, p := range append([]token.Pos{e.Position()}, e.InputPositions()...) {
			if p.IsValid() && p.Filename() == src.Name {
				off := p.Offset()
				if off >= 0 && off <= len(src.Text) {
					sp = diag.At(src, off, off+tokenLen(src.Text, off))
					break
				}
			}
		}
		got := ""
		if sp.HasPos() {
			got = string(src.Text[sp.Start:sp.End])
		}
		m := cleanMsg(msg, got)
		code := "schema"
		if m == "unknown field" {
			code = "unknown-field"
			if i := strings.LastIndex(path, "."); i >= 0 {
				m = fmt.Sprintf("unknown field %q", path[i+1:])
			} else {
				m = fmt.Sprintf("unknown field %q", path)
			}
		}
		if path != "" {
			m = path + ": " + m
		}
		out.Add(sp, diag.Error, code, path, m)
	}
	// Fold the branch errors of a failed disjunction at one path into one diagnostic.
	var folded diag.List
	seen := map[string]int{}
	for _, d := range out {
		if disj[d.Path] {
			if i, ok := seen[d.Path]; ok {
				rest := strings.TrimPrefix(d.Message, d.Path+": ")
				if !strings.Contains(folded[i].Message, rest) {
					folded[i].Message += "; or " + rest
				}
				continue
			}
			seen[d.Path] = len(folded)
		}
		folded = append(folded, d)
	}
	return folded.Sort()
}

// joinCUEPath writes a CUE error path the way pigo writes paths: list indexes as [N].
func joinCUEPath(path []string) string {
	var b strings.Builder
	for _, p := range path {
		if _, err := strconv.Atoi(p); err == nil && b.Len() > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func stripDef(path []string) []string {
	if len(path) > 0 && strings.HasPrefix(path[0], "#") {
		return path[1:]
	}
	return path
}

// tokenLen is the length of the token at off: a quoted string, or a run of non-space bytes.
func tokenLen(text []byte, off int) int {
	if off >= len(text) {
		return 0
	}
	if text[off] == '"' {
		for i := off + 1; i < len(text); i++ {
			if text[i] == '\\' {
				i++
				continue
			}
			if text[i] == '"' || text[i] == '\n' {
				return i - off + 1
			}
		}
	}
	i := off
	for i < len(text) && !strings.ContainsRune(" \t\r\n,:}]", rune(text[i])) {
		i++
	}
	return max(1, i-off)
}
