package sandbox

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// riskyVar reports a variable whose value changes what later commands run or read: the
// command search path, the shell's startup files and word splitting, the dynamic loader,
// git's and other tools' configuration and helpers. Assigning one (prefix, statement or
// declaration) makes a line impossible to allow: a rule matches "git status", not the git
// that PATH or GIT_DIR would make it.
func riskyVar(name string) bool {
	switch name {
	case "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE",
		"PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELL", "EXECIGNORE", "FIGNORE", "HISTFILE",
		"TMPDIR", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY",
		"SSH_ASKPASS", "SUDO_ASKPASS", "CC", "CXX", "LD", "MAKEFLAGS", "MFLAGS", "MAKEFILES", "GNUMAKEFLAGS",
		"NODE_OPTIONS", "NODE_PATH", "RUBYOPT", "RUBYLIB", "PERLLIB", "PERL5OPT", "PERL5LIB",
		"OPENSSL_CONF", "GCONV_PATH", "TERMINFO", "INPUTRC", "CURL_HOME", "WGETRC", "NETRC",
		"HOSTALIASES", "RESOLV_HOST_CONF", "LOCALDOMAIN", "TZDIR", "NLSPATH", "LOCPATH":
		return true
	}
	switch name {
	case "GOOS", "GOARCH", "CGO_ENABLED", "GOMAXPROCS":
		return false
	}
	for _, p := range []string{"LD_", "GIT_", "DYLD_", "BASH_FUNC_", "PYTHON", "NPM_CONFIG_", "npm_config_",
		"XDG_", "CARGO_", "RUSTC", "GO", "JAVA_", "_JAVA_", "MAVEN_", "GRADLE_", "PIP_", "UV_", "DOCKER_",
		"KUBE", "AWS_", "SSH_", "GNUPG", "GPG_", "PI_", "PIGO_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return strings.HasSuffix(name, "PATH") || strings.HasSuffix(name, "_OPTIONS") || strings.HasSuffix(name, "OPTS") ||
		strings.HasSuffix(name, "_HOME") || strings.HasSuffix(name, "_CONFIG")
}

// varSetters are builtins that assign the variables named by their arguments.
var varSetters = map[string]bool{"read": true, "mapfile": true, "readarray": true, "getopts": true,
	"printf": true, "unset": true, "export": true, "declare": true, "typeset": true, "local": true,
	"readonly": true, "let": true}

// callRisk says why a simple command can never be allowed, or "".
func callRisk(x *syntax.CallExpr) string {
	name, ok := wordValue(x.Args[0])
	if !ok {
		return ""
	}
	args := x.Args[1:]
	if wrappers[path.Base(name)] {
		// "env PATH=/tmp git status", "sudo LD_PRELOAD=x cmd": assignments as arguments.
		for _, w := range args {
			v, ok := wordValue(w)
			if !ok {
				break
			}
			if i := strings.IndexByte(v, '='); i > 0 && !strings.HasPrefix(v, "-") && riskyVar(v[:i]) {
				return name + " sets " + v[:i] + ", which changes what the command runs"
			}
		}
	}
	switch {
	case varSetters[name]:
		for _, w := range args {
			v, ok := wordValue(w)
			if !ok {
				if name == "printf" || name == "unset" {
					continue
				}
				return name + " with an argument pigo cannot read could assign any variable"
			}
			if i := strings.IndexAny(v, "=+["); i >= 0 {
				v = v[:i]
			}
			if riskyVar(v) {
				return name + " assigns " + v + ", which changes what later commands run"
			}
		}
	case name == "set":
		for _, w := range args {
			v, ok := wordValue(w)
			if !ok || v == "posix" || v == "-T" || v == "functrace" || v == "-o" && len(args) == 1 {
				return "set with this option changes how the shell reads the rest of the line"
			}
		}
	case name == "shopt":
		for _, w := range args {
			v, ok := wordValue(w)
			if !ok || v == "expand_aliases" || v == "extdebug" || v == "-o" {
				return "shopt " + v + " changes how the shell reads the rest of the line"
			}
		}
	case name == "alias" || name == "enable" || name == "hash" || name == "complete" || name == "bind":
		// Harmless without expand_aliases or a loaded builtin, but they redefine names.
		for _, w := range args {
			if _, ok := wordValue(w); !ok {
				return name + " with an argument pigo cannot read"
			}
		}
	}
	return ""
}

// clauseRisk says why a declaration, test or arithmetic clause can never be allowed, or "".
func clauseRisk(n syntax.Node) string {
	switch x := n.(type) {
	case *syntax.DeclClause:
		for _, a := range x.Args {
			switch {
			case a.Name != nil && riskyVar(a.Name.Value):
				return x.Variant.Value + " assigns " + a.Name.Value + ", which changes what later commands run"
			case a.Naked && a.Name == nil:
				v, ok := wordValue(a.Value)
				if !ok {
					return x.Variant.Value + " with an argument pigo cannot read could assign any variable"
				}
				if strings.HasPrefix(v, "-") && strings.ContainsAny(v, "i") {
					return x.Variant.Value + " " + v + ": every assignment to it is arithmetic, which can run commands"
				}
				if strings.HasPrefix(v, "-") && strings.ContainsAny(v, "nf") || strings.HasPrefix(v, "+") {
					return x.Variant.Value + " " + v + " (a name reference or a function) can redirect later assignments"
				}
			}
		}
		if x.Variant.Value == "nameref" {
			return "a name reference can redirect later assignments"
		}
	case *syntax.TestClause:
		risk := ""
		syntax.Walk(x.X, func(n syntax.Node) bool {
			if u, ok := n.(*syntax.UnaryTest); ok && (u.Op == syntax.TsVarSet || u.Op == syntax.TsRefVar) {
				if w, ok := u.X.(*syntax.Word); ok {
					v, lit := "", true
					for _, p := range w.Parts {
						l, ok := p.(*syntax.Lit)
						if !ok {
							lit = false
							break
						}
						v += l.Value
					}
					if !lit || strings.Contains(v, "[") && !numericSubscript(v) {
						risk = "[[ -v ... ]] evaluates a subscript as arithmetic, which can run commands"
					}
				}
			}
			return risk == ""
		})
		return risk
	}
	return ""
}

// numericSubscript reports "name[123]" (a literal index).
func numericSubscript(v string) bool {
	i, j := strings.IndexByte(v, '['), strings.LastIndexByte(v, ']')
	if i < 0 || j != len(v)-1 || j <= i+1 {
		return false
	}
	for _, c := range v[i+1 : j] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// numberWord reports a test operand that is a plain decimal number.
func numberWord(n syntax.TestExpr) bool {
	w, ok := n.(*syntax.Word)
	if !ok {
		return false
	}
	v, ok := wordValue(w)
	if !ok || v == "" {
		return false
	}
	v = strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return v != ""
}

// arithUses returns the variables an arithmetic expression reads, and hard when it reads
// something the taint check below does not cover: a substitution (its output is evaluated
// again), a positional or special parameter, an expansion with an operator. bash evaluates a
// variable's value as arithmetic again, and an array subscript in it ("a[$(cmd)]") runs a
// command; so a read is unsafe when the line can give the variable such a value.
func arithUses(x syntax.ArithmExpr) (names []string, hard bool) {
	syntax.Walk(x, func(n syntax.Node) bool {
		switch y := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.SglQuoted, *syntax.DblQuoted:
			hard = true // a quoted word is expanded, then evaluated: "a[$(cmd)]" runs cmd
		case *syntax.ParamExp:
			if y.Param == nil || y.Excl || y.Exp != nil || y.Repl != nil || y.Slice != nil || y.Names != 0 {
				hard = true
				break
			}
			switch v := y.Param.Value; {
			case v == "#" || v == "?" || v == "$" || v == "!" || y.Length:
			case isIdent(v) && !shellSet[v]:
				names = append(names, v)
			default:
				hard = true // $1, $@, $*: function and set -- arguments
			}
		case *syntax.Lit:
			if shellSet[y.Value] {
				hard = true
			} else if isIdent(y.Value) {
				names = append(names, y.Value)
			} else if strings.ContainsAny(y.Value, "$`\\'\"") {
				hard = true
			}
		}
		return !hard
	})
	return names, hard
}

// shellSet are variables bash sets from what the line did (the last argument, the directory,
// input, a regex match): always treated as set by the line.
var shellSet = map[string]bool{"_": true, "PWD": true, "OLDPWD": true, "REPLY": true, "OPTARG": true,
	"MAPFILE": true, "BASH_REMATCH": true, "BASH_COMMAND": true, "BASH_ARGV": true, "BASH_SOURCE": true,
	"FUNCNAME": true, "COPROC": true, "BASH_EXECUTION_STRING": true, "READLINE_LINE": true}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// numericValue reports an assigned value that is always a number: digits or $((...)).
func numericValue(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.ArithmExp:
		case *syntax.Lit:
			for i := 0; i < len(x.Value); i++ {
				if x.Value[i] < '0' || x.Value[i] > '9' {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// paramRisk says why a parameter expansion can run code, or "": ${x@P} (prompt expansion
// runs $(...) in the value), ${!x} (indirection through "a[$(cmd)]"), and subscripts or
// slices that are arithmetic on a variable.
func paramRisk(p *syntax.ParamExp) string {
	if p.Excl && p.Names == 0 {
		return "an indirect expansion ${!...}: the name it reads can run commands"
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps {
		op, ok := wordValue(p.Exp.Word)
		switch {
		case !ok:
			return "a ${...@...} expansion pigo cannot read"
		case op == "Q", op == "E", op == "U", op == "u", op == "L", op == "a", op == "A", op == "K", op == "k":
		default:
			return "a ${...@" + op + "} expansion: it can run commands"
		}
	}
	return ""
}

// isAllElems is the subscript "@" or "*".
func isAllElems(w *syntax.Word) bool {
	v, ok := wordValue(w)
	return ok && (v == "@" || v == "*")
}

// netRedirect reports a redirection whose target is, or could be, bash's /dev/tcp or /dev/udp
// (a word pigo cannot read entirely counts when its known beginning allows it).
func netRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return false
	}
	if r.Word == nil {
		return false
	}
	if v, ok := wordValue(r.Word); ok {
		return strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/")
	}
	pre := wordPrefix(r.Word)
	for _, dev := range []string{"/dev/tcp/", "/dev/udp/"} {
		if strings.HasPrefix(dev, pre) || strings.HasPrefix(pre, dev) {
			return true
		}
	}
	return false
}

// wordPrefix is the value of a word's leading literal parts, up to the first part pigo cannot
// read (an expansion, a glob, a brace or a tilde).
func wordPrefix(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			if i := strings.IndexAny(v, "~*?[{"); i >= 0 {
				unescape(&b, v[:i], "")
				return b.String()
			}
			unescape(&b, v, "")
		case *syntax.SglQuoted:
			if x.Dollar {
				return b.String()
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || x.Dollar {
					return b.String()
				}
				unescape(&b, l.Value, "$`\"\\\n")
			}
		default:
			return b.String()
		}
	}
	return b.String()
}

// couldMatch reports whether some text beginning with prefix matches a rule pattern: a deny
// rule that could match what a word pigo cannot read expands to. Linear: a "*" met before
// the prefix ends matches whatever follows.
func couldMatch(pattern, prefix string) bool {
	p, s := []rune(pattern), []rune(prefix)
	i := 0
	for j := 0; j < len(s); j++ {
		if i >= len(p) {
			return false
		}
		switch p[i] {
		case '*':
			return true
		case '?':
		default:
			if p[i] != s[j] {
				return false
			}
		}
		i++
	}
	return true
}

// wrappers run their arguments as a command: deny rules also look at what they run.
var wrappers = map[string]bool{"command": true, "builtin": true, "exec": true, "nohup": true, "time": true,
	"env": true, "nice": true, "setsid": true, "sudo": true, "doas": true, "timeout": true, "stdbuf": true,
	"xargs": true, "ionice": true, "chrt": true, "taskset": true, "unbuffer": true, "caffeinate": true,
	"flock": true, "watch": true, "strace": true, "ltrace": true, "busybox": true}

// unwrapped returns the plain words after leading wrappers and their options ("sudo -u x git
// push" → "git push"), or nil when the words do not start with a wrapper. It is a heuristic for
// deny rules only: an option's argument may be taken for the command, which only adds texts
// to check.
func unwrapped(words []string) [][]string {
	var out [][]string
	if len(words) > 0 && path.Base(words[0]) == "find" {
		// find ... -exec CMD ... ; (also -execdir, -ok, -okdir)
		for i, w := range words {
			if w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir" {
				end := i + 1
				for end < len(words) && words[end] != ";" && words[end] != "+" {
					end++
				}
				if end > i+1 {
					out = append(out, words[i+1:end])
				}
			}
		}
		return out
	}
	for i := 0; i < len(words); i++ {
		if !wrappers[path.Base(words[i])] {
			break
		}
		j := i + 1
		for j < len(words) && (strings.HasPrefix(words[j], "-") || strings.Contains(words[j], "=")) {
			j++
		}
		if j < len(words) {
			out = append(out, words[j:])
			if j+1 < len(words) {
				out = append(out, words[j+1:]) // an option that took an argument
			}
		}
		i = j - 1
	}
	return out
}
