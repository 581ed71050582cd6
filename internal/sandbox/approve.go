package sandbox

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// Decisions of an approval evaluation.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// RuleRef is a rule as reported in JSON: action, pattern and where it was written.
type RuleRef struct {
	Action  string `json:"action"`
	Pattern string `json:"pattern"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// CommandDecision is the verdict on one flattened command.
type CommandDecision struct {
	Text     string   `json:"text"`
	Offset   int      `json:"offset"`
	Decision string   `json:"decision"` // allow | deny | ask (no rule matched, or opaque)
	Rule     *RuleRef `json:"rule,omitempty"`
	Redirect bool     `json:"redirect"`
	Opaque   bool     `json:"opaque,omitempty"`
	Nested   bool     `json:"nested,omitempty"`
	Unsafe   string   `json:"unsafe,omitempty"` // why it can never be allowed
}

// Approval is the result of evaluating a command line; its JSON is the shape of
// `pigo sandbox approve` (the caller adds "version").
type Approval struct {
	Decision    string            `json:"decision"`
	Commands    []CommandDecision `json:"commands"`
	Redirect    bool              `json:"redirect"`
	Suggestions []string          `json:"suggestions"`
	Error       string            `json:"error,omitempty"` // parse failure, or why nothing was found
	// Unsafe lists constructs of the line where the parser and bash could disagree, or that
	// run code no rule sees: such a line is never allowed.
	Unsafe []Finding `json:"unsafe,omitempty"`
}

// Rules is a compiled list of approval rules, in order (later rules win).
type Rules struct {
	rules []compiledRule
}

type compiledRule struct {
	Rule
	re *regexp.Regexp
}

// CompileRules compiles rules for evaluation. Rules that [ValidateRule] rejects are skipped
// (check reports them); the order of the others is kept.
func CompileRules(rules []Rule) *Rules {
	rs := &Rules{}
	for _, r := range rules {
		if ValidateRule(r) != nil {
			continue
		}
		rs.rules = append(rs.rules, compiledRule{Rule: r, re: patternRegexp(r.Pattern)})
	}
	return rs
}

// patternRegexp turns a rule pattern into an anchored, dot-all regexp: "*" any run of
// characters, "?" one character, everything else literal, and a trailing " *" optional.
func patternRegexp(p string) *regexp.Regexp {
	optional := strings.HasSuffix(p, " *")
	if optional {
		p = strings.TrimSuffix(p, " *")
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for _, r := range p {
		switch r {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	if optional {
		b.WriteString(`(?: .*)?`)
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// MatchPattern reports whether a rule pattern matches text.
func MatchPattern(pattern, text string) bool {
	return patternRegexp(pattern).MatchString(text)
}

// last returns the last rule matching text, or nil.
func (rs *Rules) last(text string) *compiledRule {
	for i := len(rs.rules) - 1; i >= 0; i-- {
		if rs.rules[i].re.MatchString(text) {
			return &rs.rules[i]
		}
	}
	return nil
}

// Evaluate decides a command line with rules (see the package comment); a convenience for
// CompileRules(rules).Evaluate(line).
func Evaluate(rules []Rule, line string) Approval {
	return CompileRules(rules).Evaluate(line)
}

// Evaluate decides a command line: deny when any command's last matching rule is a deny;
// ask when the line does not parse, has no command, writes to a file, or has a command that
// is not allowed; allow otherwise.
func (rs *Rules) Evaluate(line string) Approval {
	a := Approval{Decision: Ask, Commands: []CommandDecision{}, Suggestions: []string{}}
	fl, err := flatten(line)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	cmds := fl.cmds
	a.Redirect = fl.redirect
	a.Unsafe = fl.findings
	if fl.tooBig {
		a.Error = fmt.Sprintf("the line has too many commands to decide (more than %d, or nested substitutions repeating %d bytes)", maxCommands, maxTextBytes(len(line)))
	}
	if len(cmds) == 0 {
		if a.Error == "" {
			a.Error = "no command found"
		}
		return a
	}
	denied, allowed := false, 0
	seen := map[string]bool{}
	for i := range cmds {
		c := &cmds[i]
		d := CommandDecision{Text: c.Text, Offset: c.Offset, Decision: Ask, Redirect: c.Redirect, Opaque: c.Opaque, Nested: c.Nested, Unsafe: c.Unsafe}
		r := rs.last(c.Text)
		if r == nil || r.Action != Deny {
			// Deny also looks through quoting, continuations, paths, env prefixes and wrappers.
			if p := rs.denyPlain(c); p != nil {
				r = p
			}
		}
		if r != nil {
			d.Rule = &RuleRef{Action: r.Action, Pattern: r.Pattern, File: r.Origin.File, Line: r.Origin.Line, Column: r.Origin.Column}
			switch {
			case r.Action == Deny:
				d.Decision = Deny
				denied = true
			case c.Opaque || c.Unsafe != "":
			case c.partial || c.appends:
				// A word pigo cannot read could make the command one a deny rule names.
				if dr := rs.couldDeny(c); dr != nil {
					d.Unsafe = fmt.Sprintf("a word pigo cannot read could make it match deny rule %q", dr.Pattern)
					break
				}
				d.Decision = Allow
				allowed++
			default:
				d.Decision = Allow
				allowed++
			}
		}
		a.Commands = append(a.Commands, d)
		if d.Decision != Ask || c.Opaque || d.Unsafe != "" {
			continue // suggestions only for commands left undecided
		}
		s := Suggest(c.Words)
		if c.Assigns != "" {
			s = c.Assigns + " " + s
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		if r := rs.last(s); r != nil && r.Action == Allow {
			continue // already allowed
		}
		a.Suggestions = append(a.Suggestions, s)
	}
	switch {
	case denied:
		a.Decision = Deny
	case a.Redirect, len(a.Unsafe) > 0, fl.tooBig:
		a.Decision = Ask
	case allowed == len(cmds):
		a.Decision = Allow
	}
	return a
}

// denyPlain returns the last rule matching c's normalised text (or what a wrapper in it runs)
// when that rule is a deny.
func (rs *Rules) denyPlain(c *Command) *compiledRule {
	if p := rs.last(c.Plain); p != nil && p.Action == Deny && c.Plain != c.Text {
		return p
	}
	if !c.partial {
		for _, w := range unwrapped(strings.Fields(c.Plain)) {
			if len(w) > 0 {
				w[0] = path.Base(w[0])
			}
			if p := rs.last(strings.Join(w, " ")); p != nil && p.Action == Deny {
				return p
			}
		}
	}
	return nil
}

// onlyWrappers reports words that are empty or a wrapper with options: the command they run
// is still to come.
func onlyWrappers(words []string) bool {
	if len(words) == 0 {
		return true
	}
	if !wrappers[path.Base(words[0])] {
		return false
	}
	for _, w := range words[1:] {
		if !wrappers[path.Base(w)] && !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return false
		}
	}
	return true
}

// couldDeny returns a deny rule that some expansion of c's unreadable words could match: its
// readable beginning (or what a wrapper there runs) is a possible beginning of the pattern.
func (rs *Rules) couldDeny(c *Command) *compiledRule {
	texts := []string{c.prefix}
	for _, w := range unwrapped(strings.Fields(c.prefix)) {
		texts = append(texts, strings.Join(w, " "))
	}
	if onlyWrappers(strings.Fields(c.prefix)) {
		texts = append(texts, "") // an unreadable word in the command's place
	}
	for i := range rs.rules {
		r := &rs.rules[i]
		if r.Action != Deny {
			continue
		}
		for _, t := range texts {
			if couldMatch(r.Pattern, t) {
				return r
			}
		}
	}
	return nil
}

// RuleError is an approval rule that can never work. Offset is the byte inside the pattern
// where the problem is, or -1 when the action is at fault.
type RuleError struct {
	Offset  int
	Message string
}

// Error returns the message.
func (e *RuleError) Error() string { return e.Message }

// ValidateRule checks one approval rule for `pigo check` (code bad-approval-rule): the action
// must be "allow" or "deny"; the pattern must be non-empty; it must not start or end with
// whitespace (a command's raw text never does, so it could never match); and a pattern without
// wildcards must not be several commands joined by ; && || | or newlines (each command is
// matched on its own, so such a pattern could never match either).
func ValidateRule(r Rule) *RuleError {
	if r.Action != Allow && r.Action != Deny {
		return &RuleError{Offset: -1, Message: fmt.Sprintf("action: expected \"allow\" or \"deny\", got %q", r.Action)}
	}
	p := r.Pattern
	if strings.TrimSpace(p) == "" {
		return &RuleError{Offset: 0, Message: "pattern is empty; it would never match a command"}
	}
	if t := strings.TrimLeftFunc(p, unicode.IsSpace); t != p {
		return &RuleError{Offset: 0, Message: fmt.Sprintf("pattern %q starts with whitespace; it would never match a command", p)}
	}
	if t := strings.TrimRightFunc(p, unicode.IsSpace); t != p {
		return &RuleError{Offset: len(t), Message: fmt.Sprintf("pattern %q ends with whitespace; it would never match a command", p)}
	}
	if !strings.ContainsAny(p, "*?") {
		if cmds, _, err := Flatten(p); err == nil && len(cmds) > 1 && !cmds[1].Nested {
			if f, err := parseScript(p); err == nil && multiStatement(f) {
				return &RuleError{Offset: cmds[1].Offset, Message: fmt.Sprintf("pattern %q spans several commands; each command is matched on its own, so it would never match", p)}
			}
		}
	}
	return nil
}

// multiStatement reports a script with more than one statement or a top-level binary
// command (a pipeline or a chain).
func multiStatement(f *syntax.File) bool {
	if len(f.Stmts) != 1 {
		return true
	}
	_, bin := f.Stmts[0].Cmd.(*syntax.BinaryCmd)
	return bin
}
