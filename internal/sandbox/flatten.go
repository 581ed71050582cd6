package sandbox

import (
	"path"
	"strings"

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
}

// maxNesting bounds eval/sh -c recursion; deeper scripts are opaque.
const maxNesting = 8

// shells whose -c argument is a script.
var scriptShells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// Flatten parses line as bash and returns every command, parent before child, and whether
// any file-output redirection occurs. A parse error is returned as is (it carries a
// line:column position).
func Flatten(line string) (cmds []Command, redirect bool, err error) {
	f, err := parseScript(line)
	if err != nil {
		return nil, false, err
	}
	fl := &flattener{}
	fl.walk(line, f, 0, -1)
	return fl.cmds, fl.redirect, nil
}

func parseScript(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

type flattener struct {
	cmds     []Command
	redirect bool
}

// walk flattens node parsed from src; outer >= 0 is the offset of the command whose script
// src is.
func (fl *flattener) walk(src string, node syntax.Node, depth, outer int) {
	redirected := map[syntax.Command]bool{}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				if isFileOutput(r) {
					fl.redirect = true
					if x.Cmd != nil {
						redirected[x.Cmd] = true
					}
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true // assignments only: not a command, but walk into their values
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
					v = raw(src, w)
				} else if i == 0 && strings.Contains(v, "/") {
					v = path.Base(v)
				}
				plain = append(plain, v)
			}
			c.Plain = strings.Join(plain, " ")
			fl.nested(c, x, depth)
		case *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
			c := fl.add(src, x, depth, outer, redirected[x.(syntax.Command)])
			c.Words = strings.Fields(c.Text)
			c.Plain = strings.Join(c.Words, " ")
		}
		return true
	})
}

func (fl *flattener) add(src string, n syntax.Node, depth, outer int, redirect bool) *Command {
	off := int(n.Pos().Offset())
	if outer >= 0 {
		off = outer
	}
	fl.cmds = append(fl.cmds, Command{Text: raw(src, n), Offset: off, Redirect: redirect, Nested: depth > 0})
	return &fl.cmds[len(fl.cmds)-1]
}

// nested flattens the script run by eval or "sh -c" right after the command that runs it.
// The command pointer is only used before any append.
func (fl *flattener) nested(c *Command, x *syntax.CallExpr, depth int) {
	name, ok := wordValue(x.Args[0])
	if !ok {
		return
	}
	name = path.Base(name)
	var script string
	switch {
	case name == "eval":
		parts := make([]string, 0, len(x.Args)-1)
		for _, w := range x.Args[1:] {
			v, ok := wordValue(w)
			if !ok {
				c.Opaque = true
				return
			}
			parts = append(parts, v)
		}
		script = strings.Join(parts, " ")
	case scriptShells[name]:
		s, found, ok := shellScriptArg(x.Args[1:])
		if !found {
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
