package sandbox

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command found in a command line.
type Command struct {
	Text     string   // raw source text, assignments included, redirections after the last word included
	Offset   int      // byte offset in the evaluated line (for a nested script: of the outer command)
	Assigns  string   // raw text of leading assignments ("A=1 B=2"), "" when none
	Words    []string // raw text of each word: the name, then the arguments
	Plain    string   // words unquoted where literal, assignments dropped, joined by one space
	Redirect bool     // this command itself has a file-output redirection
	Opaque   bool     // runs a script that cannot be read (eval or sh -c of a non-literal)
	Nested   bool     // found inside an eval or sh -c script
	Unsafe   string   // why this command can never be allowed (it may run code pigo cannot see), "" when none

	prefix  string // Plain up to the first word part pigo cannot read
	partial bool   // some word part could not be read: prefix is all that is known
	appends bool   // xargs: words from stdin follow prefix
}

// Finding is a construct in a line where the approval parser and bash could disagree, or
// that can run code no rule sees: the line is never allowed.
type Finding struct {
	Offset int    `json:"offset"`
	Reason string `json:"reason"`
}

// maxNesting bounds eval/sh -c recursion; deeper scripts are opaque.
const maxNesting = 8

// shells whose -c argument is a script.
var scriptShells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// Flatten parses line as bash and returns every command, parent before child, and whether
// any file-output redirection occurs. A parse error is returned as is (it carries a
// line:column position).
func Flatten(line string) (cmds []Command, redirect bool, err error) {
	fl, err := flatten(line)
	if err != nil {
		return nil, false, err
	}
	return fl.cmds, fl.redirect, nil
}

// flatten is Flatten with the line-level findings and the size budget.
func flatten(line string) (*flattener, error) {
	f, err := parseScript(line)
	if err != nil {
		return nil, err
	}
	fl := &flattener{budget: maxTextBytes(len(line))}
	fl.walk(line, f, 0, -1)
	fl.checkUses()
	return fl, nil
}

// Bounds that keep deciding a line linear in its size: at most maxCommands commands, and the
// raw texts of all commands (nested substitutions repeat their parent's text) at most
// maxTextBytes. A line past either bound is not decided (ask).
const maxCommands = 1000

func maxTextBytes(n int) int { return 4*n + 64<<10 }

func parseScript(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
}

type flattener struct {
	cmds     []Command
	redirect bool
	findings []Finding
	budget   int  // raw text bytes left
	tooBig   bool // a bound was hit: the commands are incomplete
	// Arithmetic reads of variables, and the variables the line may give a non-numeric
	// value (the environment of an approved command is the clean one: what it did not set is
	// the user's).
	uses     []arithUse
	tainted  map[string]bool
	taintAll bool
}

type arithUse struct {
	name       string
	off, outer int
}

// find records a line-level finding at offset off of src (outer >= 0: the nested script's
// command offset).
func (fl *flattener) find(off, outer int, reason string) {
	if outer >= 0 {
		off = outer
	}
	fl.findings = append(fl.findings, Finding{Offset: off, Reason: reason})
}

// walk flattens node parsed from src; outer >= 0 is the offset of the command whose script
// src is.
func (fl *flattener) walk(src string, node syntax.Node, depth, outer int) {
	fl.lineFindings(src, node, outer)
	redirected := map[syntax.Command]bool{}
	syntax.Walk(node, func(n syntax.Node) bool {
		if fl.tooBig {
			return false
		}
		switch x := n.(type) {
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				if isFileOutput(r) {
					fl.redirect = true
					if x.Cmd != nil {
						redirected[x.Cmd] = true
					}
				}
				if netRedirect(r) {
					fl.find(int(r.Pos().Offset()), outer, "a redirection that may open a network connection (/dev/tcp or /dev/udp)")
				}
			}
		case *syntax.Comment:
			if strings.HasSuffix(x.Text, "\\") || strings.ContainsAny(x.Text, "\n\r") {
				fl.find(int(x.Pos().Offset()), outer, "a comment ending in a backslash: bash ends the comment at the newline, the parser would not")
			}
		case *syntax.ParamExp:
			if r := paramRisk(x); r != "" {
				fl.find(int(x.Pos().Offset()), outer, r)
			}
			if x.Index != nil {
				if w, ok := x.Index.(*syntax.Word); !ok || !isAllElems(w) {
					fl.arith(x.Index, int(x.Pos().Offset()), outer)
				}
			}
			if x.Slice != nil {
				fl.arith(x.Slice.Offset, int(x.Pos().Offset()), outer)
				fl.arith(x.Slice.Length, int(x.Pos().Offset()), outer)
			}
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) && x.Param != nil {
				fl.taint(x.Param.Value)
			}
		case *syntax.ArithmExp:
			fl.arith(x.X, int(x.Pos().Offset()), outer)
		case *syntax.CStyleLoop:
			for _, e := range []syntax.ArithmExpr{x.Init, x.Cond, x.Post} {
				fl.arith(e, int(x.Pos().Offset()), outer)
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				// [[ a -eq b ]] evaluates both operands as arithmetic.
				for _, side := range []syntax.TestExpr{x.X, x.Y} {
					if w, ok := side.(*syntax.Word); ok && !numberWord(side) {
						fl.arith(w, int(x.Pos().Offset()), outer)
					}
				}
			}
		case *syntax.ForClause:
			if wi, ok := x.Loop.(*syntax.WordIter); ok {
				numeric := wi.InPos.IsValid()
				for _, it := range wi.Items {
					numeric = numeric && numericValue(it)
				}
				if !numeric || x.Select {
					fl.taint(wi.Name.Value)
				}
			}
		case *syntax.Assign:
			if x.Index != nil {
				fl.arith(x.Index, int(x.Pos().Offset()), outer)
			}
			if x.Name != nil && (x.Array != nil || !numericValue(x.Value)) {
				fl.taint(x.Name.Value)
			}
		case *syntax.CallExpr:
			for _, a := range x.Assigns {
				if a.Name != nil && riskyVar(a.Name.Value) {
					fl.find(int(a.Pos().Offset()), outer, "an assignment to "+a.Name.Value+", which changes what later commands run")
				}
			}
			if len(x.Args) == 0 {
				return true // assignments only: not a command, but walk into their values
			}
			if !fl.spend(x) {
				return false
			}
			c := fl.add(src, x, depth, outer, redirected[x])
			for _, a := range x.Assigns {
				if c.Assigns != "" {
					c.Assigns += " "
				}
				c.Assigns += raw(src, a)
			}
			plain := make([]string, 0, len(x.Args))
			for i, w := range x.Args {
				c.Words = append(c.Words, raw(src, w))
				v, ok := wordValue(w)
				if !ok {
					if !c.partial {
						c.partial = true
						c.prefix = strings.Join(append(plain, wordPrefix(w)), " ")
					}
					v = raw(src, w)
				} else if i == 0 && strings.Contains(v, "/") {
					v = path.Base(v)
				}
				plain = append(plain, v)
			}
			c.Plain = strings.Join(plain, " ")
			if !c.partial {
				c.prefix = c.Plain
				if appendsArgs(plain) {
					// xargs adds words from stdin: only the beginning is known.
					c.appends, c.prefix = true, c.Plain+" "
				}
			}
			c.Unsafe = callRisk(x)
			fl.taintArgs(x)
			fl.nested(c, x, depth)
		case *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
			if !fl.spend(x) {
				return false
			}
			c := fl.add(src, x, depth, outer, redirected[x.(syntax.Command)])
			c.Words = strings.Fields(c.Text)
			c.Plain = strings.Join(c.Words, " ")
			c.prefix = c.Plain
			c.Unsafe = clauseRisk(x)
			switch y := x.(type) {
			case *syntax.ArithmCmd:
				fl.arith(y.X, int(y.Pos().Offset()), outer)
			case *syntax.LetClause:
				for _, e := range y.Exprs {
					fl.arith(e, int(y.Pos().Offset()), outer)
				}
			}
		}
		return true
	})
}

// arith records the variables an arithmetic expression reads (checked against the taint
// once the whole line is walked), or a finding when it reads a substitution or a parameter.
func (fl *flattener) arith(x syntax.ArithmExpr, off, outer int) {
	if x == nil {
		return
	}
	names, hard := arithUses(x)
	if hard {
		fl.find(off, outer, "arithmetic on a substitution or a parameter: its value is evaluated and can run commands")
		return
	}
	for _, n := range names {
		fl.uses = append(fl.uses, arithUse{name: n, off: off, outer: outer})
	}
}

// taint marks a variable the line gives a value that may not be a number.
func (fl *flattener) taint(name string) {
	if fl.tainted == nil {
		fl.tainted = map[string]bool{}
	}
	fl.tainted[name] = true
}

// taintArgs marks the variables a command assigns through its arguments (read, mapfile,
// getopts, printf -v), and everything after source or ".".
func (fl *flattener) taintArgs(x *syntax.CallExpr) {
	name, ok := wordValue(x.Args[0])
	if !ok {
		return
	}
	switch name {
	case "source", ".":
		fl.taintAll = true
	case "read", "mapfile", "readarray", "getopts", "printf", "select":
		for _, w := range x.Args[1:] {
			if v, ok := wordValue(w); ok {
				if i := strings.IndexAny(v, "=["); i >= 0 {
					v = v[:i]
				}
				if isIdent(v) {
					fl.taint(v)
				}
			}
		}
	}
}

// checkUses turns each arithmetic read of a tainted variable into a finding.
func (fl *flattener) checkUses() {
	for _, u := range fl.uses {
		if fl.taintAll || fl.tainted[u.name] {
			fl.find(u.off, u.outer, "arithmetic on "+u.name+", which the line sets: its value is evaluated and can run commands")
		}
	}
}

// spend takes a command's raw text from the budget; false (and tooBig) when it is spent.
func (fl *flattener) spend(n syntax.Node) bool {
	size := int(n.End().Offset()) - int(n.Pos().Offset())
	fl.budget -= size
	if fl.budget < 0 || len(fl.cmds) >= maxCommands {
		fl.tooBig = true
		return false
	}
	return true
}

// lineFindings reports what the parser sees differently from bash in src: a carriage return
// outside quotes (bash keeps it in the word, the parser may end the line there or join it to
// a continuation) or before a newline anywhere (the parser drops it), another control
// character outside quotes (bash splits words only at blanks), a NUL byte and invalid UTF-8.
// Linear in src.
func (fl *flattener) lineFindings(src string, node syntax.Node, outer int) {
	if strings.IndexByte(src, 0) >= 0 {
		fl.find(strings.IndexByte(src, 0), outer, "a NUL byte")
	}
	if !utf8.ValidString(src) {
		fl.find(0, outer, "invalid UTF-8")
	}
	if i := strings.Index(src, "\r\n"); i >= 0 {
		// mvdan.cc/sh reads CRLF as LF even inside quotes; bash keeps the CR, so a quoted
		// script (eval, sh -c) or a word would differ.
		fl.find(i, outer, "a carriage return before a newline: the parser drops it, bash keeps it")
		return
	}
	control := func(c byte) bool { return c < 0x20 && c != '\t' && c != '\n' && c != 0 || c == 0x7f }
	first := -1
	for i := 0; i < len(src); i++ {
		if control(src[i]) {
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	quoted := make([]bool, len(src))
	mark := func(a, b int) {
		for i := max(a, 0); i < b && i < len(src); i++ {
			quoted[i] = true
		}
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			mark(int(n.Pos().Offset())+1, int(n.End().Offset())-1)
			return false
		}
		if r, ok := n.(*syntax.Redirect); ok && r.Hdoc != nil {
			mark(int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset()))
		}
		return true
	})
	for i := first; i < len(src); i++ {
		if !control(src[i]) || quoted[i] {
			continue
		}
		if src[i] == '\r' {
			fl.find(i, outer, "a carriage return outside quotes: bash keeps it in the word, the parser may not")
		} else {
			fl.find(i, outer, fmt.Sprintf("a control character (%#x) outside quotes: bash and the parser may split the words differently", src[i]))
		}
		return
	}
}

func (fl *flattener) add(src string, n syntax.Node, depth, outer int, redirect bool) *Command {
	off := int(n.Pos().Offset())
	if outer >= 0 {
		off = outer
	}
	fl.cmds = append(fl.cmds, Command{Text: raw(src, n), Offset: off, Redirect: redirect, Nested: depth > 0})
	return &fl.cmds[len(fl.cmds)-1]
}

// nested flattens the script run by eval, trap or "sh -c" right after the command that runs
// it, looking through wrappers ("command eval ...", "sudo sh -c ..."). The command pointer is
// only used before any append.
func (fl *flattener) nested(c *Command, x *syntax.CallExpr, depth int) {
	args := x.Args
	for len(args) > 0 {
		name, ok := wordValue(args[0])
		if !ok || !wrappers[path.Base(name)] {
			break
		}
		args = args[1:]
		for len(args) > 0 {
			v, ok := wordValue(args[0])
			if !ok {
				c.Opaque = true // a wrapper's word pigo cannot read could be eval or a shell
				return
			}
			if !strings.HasPrefix(v, "-") && !strings.Contains(v, "=") {
				break
			}
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return
	}
	name, ok := wordValue(args[0])
	if !ok {
		return
	}
	name = path.Base(name)
	var script string
	switch {
	case name == "eval" || name == "trap":
		rest := args[1:]
		if name == "trap" {
			for len(rest) > 0 {
				if v, ok := wordValue(rest[0]); ok && strings.HasPrefix(v, "-") {
					rest = rest[1:]
					continue
				}
				break
			}
			if len(rest) == 0 {
				return
			}
			rest = rest[:1] // trap ACTION SIGNAL...
		}
		parts := make([]string, 0, len(rest))
		for _, w := range rest {
			v, ok := wordValue(w)
			if !ok {
				c.Opaque = true
				return
			}
			parts = append(parts, v)
		}
		script = strings.Join(parts, " ")
	case name == "source" || name == ".":
		if len(args) > 1 && hiddenScript(args[1]) {
			c.Opaque = true // a script from stdin or a pipe, which no rule sees
		}
		return
	case cFlagRunners[name]:
		for i, w := range args[1:] {
			v, ok := wordValue(w)
			if !ok {
				c.Opaque = true
				return
			}
			if v == "-c" || v == "--command" {
				if i+2 >= len(args) {
					return
				}
				sc, ok := wordValue(args[i+2])
				if !ok {
					c.Opaque = true
					return
				}
				script = sc
				break
			}
		}
		if script == "" {
			return
		}
	case scriptShells[name]:
		s, found, ok := shellScriptArg(args[1:])
		if !found {
			if readsStdin(args[1:]) {
				c.Opaque = true // the script comes from stdin, which no rule sees
			}
			return
		}
		if !ok {
			c.Opaque = true
			return
		}
		script = s
	default:
		return
	}
	if depth+1 > maxNesting {
		c.Opaque = true
		return
	}
	f, err := parseScript(script)
	if err != nil {
		c.Opaque = true
		return
	}
	outer := c.Offset
	fl.walk(script, f, depth+1, outer)
}

// cFlagRunners run "-c SCRIPT" wherever the option stands ("su root -c 'cmd'").
var cFlagRunners = map[string]bool{"su": true, "runuser": true, "script": true, "flock": true}

// appendsArgs reports words that run a command with more arguments read from stdin (xargs,
// possibly behind other wrappers).
func appendsArgs(words []string) bool {
	for _, w := range words {
		b := path.Base(w)
		if b == "xargs" || b == "parallel" {
			return true
		}
		if !wrappers[b] && !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return false
		}
	}
	return false
}

// hiddenScript reports a script file argument whose content no rule sees: stdin, a
// descriptor, a process substitution, or a word pigo cannot read.
func hiddenScript(w *syntax.Word) bool {
	v, ok := wordValue(w)
	if !ok {
		return true
	}
	return v == "-" || v == "/dev/stdin" || strings.HasPrefix(v, "/dev/fd/") || strings.HasPrefix(v, "/proc/")
}

// readsStdin reports a shell started without a script file: it reads its script from stdin
// (a pipe or a heredoc no rule sees), unless it only prints its version or help. A script
// file that is stdin or a descriptor counts too.
func readsStdin(args []*syntax.Word) bool {
	for _, w := range args {
		v, ok := wordValue(w)
		if !ok {
			return true
		}
		switch {
		case !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") && hiddenScript(w):
			return true
		case v == "--version" || v == "--help":
			return false
		case v == "-s" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "s"):
			return true
		case !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+"):
			return false // a script file: rules decide
		}
	}
	return true
}

// shellScriptArg finds the script of "sh [options] -c SCRIPT": found reports a -c option, ok
// that the script (and every option before it) is a literal.
func shellScriptArg(args []*syntax.Word) (script string, found, ok bool) {
	sawC := false
	for i := 0; i < len(args); i++ {
		v, lit := wordValue(args[i])
		if !lit {
			return "", sawC || anyDashC(args[i:]), false
		}
		switch {
		case v == "--" || v == "-":
			if i+1 < len(args) && sawC {
				s, lit := wordValue(args[i+1])
				return s, true, lit
			}
			return "", sawC, false
		case (strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+")) && len(v) > 1:
			if strings.HasPrefix(v, "--") {
				continue // long option such as --norc
			}
			if strings.ContainsRune(v[1:], 'c') && v[0] == '-' {
				sawC = true
			}
			if strings.ContainsAny(v[1:], "oO") {
				i++ // -o OPTION / -O OPTION take an argument
			}
		default:
			if !sawC {
				return "", false, false // "bash script.sh": not a -c script
			}
			return v, true, true
		}
	}
	return "", sawC, false
}

// anyDashC is a conservative check used once a non-literal word is met: could a later word
// be -c? Non-literal words might expand to anything, so yes unless there are none.
func anyDashC(rest []*syntax.Word) bool { return len(rest) > 0 }

// isFileOutput reports a redirection that writes to a file: > >> >| &> &>> <> (and the zsh
// clobber forms), and >&WORD unless WORD is a file descriptor number or "-".
func isFileOutput(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	case syntax.DplOut:
		v, ok := wordValue(r.Word)
		if !ok {
			return true
		}
		v = strings.TrimSuffix(v, "-")
		if v == "" {
			return false // ">&-" closes the descriptor
		}
		for _, ch := range v {
			if ch < '0' || ch > '9' {
				return true
			}
		}
		return false
	}
	return false
}

// wordValue returns the value of a word made only of literals and quotes (no expansion),
// with quotes and backslash escapes removed as the shell would.
func wordValue(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, "~*?[{") {
				return "", false // tilde, glob or brace expansion could change it
			}
			unescape(&b, x.Value, "")
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				unescape(&b, l.Value, "$`\"\\\n")
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes backslashes: before any character when special is "" (unquoted text),
// else only before the characters in special (double-quoted text). A backslash-newline
// disappears entirely.
func unescape(b *strings.Builder, s, special string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (special == "" || strings.IndexByte(special, s[i+1]) >= 0) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
}

func raw(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}
