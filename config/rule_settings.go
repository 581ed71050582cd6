package config

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pattern"
)

// checkSettingsRules checks personalExtensions patterns (bad-glob) and conditions (bad-expr) in
// one settings layer.
func (c *Config) checkSettingsRules(f *File) {
	if f.Scope == Project {
		// D4: some keys are read from the global file only; a project value is ignored.
		for _, m := range f.Root.Members {
			if mergeRule(Settings, m.Key) == RuleGlobal {
				f.Diags.Add(diag.At(f.Src, m.KeyStart, m.KeyEnd), diag.Warning, "global-only", m.Key,
					fmt.Sprintf("%s is read from the global settings.json only; this project value is ignored", m.Key))
			}
		}
	}
	c.settingsResources(f)
	c.packageDiags(f)
	pe := f.Root.Get("personalExtensions")
	if pe == nil || pe.Kind != jsonc.Object {
		return
	}
	if v := pe.Get("fileIoByModel"); v != nil && v.Kind == jsonc.Array {
		for i, e := range v.Elems {
			p := fmt.Sprintf("personalExtensions.fileIoByModel[%d]", i)
			c.globs(f, e.Get("models"), p+".models")
			c.expr(f, e.Get("when"), p+".when")
		}
	}
	for _, field := range []string{"disabledTools", "enabledTools", "codemodeOnlyTools"} {
		v := pe.Get(field)
		if v == nil || v.Kind != jsonc.Array {
			continue
		}
		for i, e := range v.Elems {
			p := fmt.Sprintf("personalExtensions.%s[%d]", field, i)
			switch e.Kind {
			case jsonc.String:
				c.glob(f, e, p)
			case jsonc.Object:
				c.globs(f, e.Get("tools"), p+".tools")
				c.globs(f, e.Get("models"), p+".models")
				c.expr(f, e.Get("when"), p+".when")
			}
		}
	}
}

func (c *Config) globs(f *File, list *jsonc.Node, path string) {
	if list == nil || list.Kind != jsonc.Array {
		return
	}
	for i, e := range list.Elems {
		c.glob(f, e, fmt.Sprintf("%s[%d]", path, i))
	}
}

// glob reports a pattern that does not compile (D8), at the offending byte inside the string.
func (c *Config) glob(f *File, n *jsonc.Node, path string) {
	if n == nil || n.Kind != jsonc.String {
		return
	}
	_, err := pattern.Compile(n.Str)
	var pe *pattern.Error
	if !errors.As(err, &pe) {
		return
	}
	at, reason, hint := pe.Offset, pe.Reason, ""
	if o, open := unclosed(n.Str); o >= 0 {
		// The parser stops at the end of the text; the mistake is the bracket never closed.
		at = o
		closer := map[byte]string{'[': "]", '{': "}"}[open]
		reason = fmt.Sprintf("%q is never closed", string(open))
		hint = fmt.Sprintf("close it with %q, or escape it for a literal %s (\\\\%s in a JSON string)", closer, string(open), string(open))
	}
	off := jsonc.StringOffset(f.Src.Text, n, utf8.RuneCountInString(n.Str[:min(at, len(n.Str))]))
	d := f.Diags.Add(diag.At(f.Src, off, off+1), diag.Error, "bad-glob", path, fmt.Sprintf("%s: bad pattern %q: %s", path, n.Str, reason))
	d.Hint = hint
}

// unclosed returns the byte offset and the bracket of the first '[' or '{' of a pattern that
// is never closed (backslash escapes respected), or -1.
func unclosed(s string) (int, byte) {
	var stack []int
	inClass := -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case inClass >= 0:
			if c == ']' && i > inClass+1 && !(i == inClass+2 && s[inClass+1] == '!' || i == inClass+2 && s[inClass+1] == '^') {
				inClass = -1
			}
		case c == '[':
			inClass = i
		case c == '{':
			stack = append(stack, i)
		case c == '}' && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	if inClass >= 0 {
		return inClass, '['
	}
	if len(stack) > 0 {
		return stack[0], '{'
	}
	return -1, 0
}

// expr reports a `when` condition that does not compile (D7), at the offending character.
func (c *Config) expr(f *File, n *jsonc.Node, path string) {
	if n == nil || n.Kind != jsonc.String {
		return
	}
	_, err := cond.Compile(n.Str)
	var ce *cond.Error
	if !errors.As(err, &ce) {
		return
	}
	off := jsonc.StringOffset(f.Src.Text, n, ce.Offset)
	msg, hint := cond.Friendly(ce.Message)
	d := f.Diags.Add(diag.At(f.Src, off, off+1), diag.Error, "bad-expr", path, fmt.Sprintf("%s: bad condition: %s", path, msg))
	d.Hint = hint
}

// checkDeclarationRules checks the `when` conditions of declared tools and commands (bad-expr)
// and the rule that a command has at most one of `prompt` and `run`.
func (c *Config) checkDeclarationRules(f *File) {
	for _, list := range []string{"tools", "commands"} {
		v := f.Root.Get(list)
		if v == nil || v.Kind != jsonc.Array {
			continue
		}
		for i, e := range v.Elems {
			p := fmt.Sprintf("%s[%d]", list, i)
			c.expr(f, e.Get("when"), p+".when")
			if list == "commands" && e.Get("prompt") != nil && e.Get("run") != nil {
				m := e.Member("run")
				f.Diags.Add(diag.At(f.Src, m.KeyStart, m.KeyEnd), diag.Error, "schema", p+".run",
					p+": a command has either a prompt or a run argv, not both")
			}
		}
	}
}

// checkDuplicateNames reports prompts and skills that share a name: the project's wins over the
// agent dir's, and within one place the first found wins (duplicate-name).
func (c *Config) checkDuplicateNames() diag.List {
	var out diag.List
	for _, k := range []Kind{Prompt, Skill} {
		winners := map[string]*File{}
		var order []*File
		for _, scope := range []Scope{Project, Global} {
			for _, f := range c.Files {
				if f.Kind == k && f.Scope == scope && !f.Broken {
					order = append(order, f)
				}
			}
		}
		for _, f := range order {
			name := f.Name
			if k == Prompt {
				name = resourceName(f.Path, Prompt)
			}
			if w, ok := winners[name]; ok {
				sp := diag.FileSpan(f.Src)
				if n := f.Root.Get("name"); n != nil && n.Kind == jsonc.String {
					sp = diag.At(f.Src, n.Start, n.End) // the name that clashes
				}
				out.Add(sp, diag.Warning, "duplicate-name", "",
					fmt.Sprintf("%s %q is also defined in %s, which wins; this one is ignored", k, name, w.Path))
				continue
			}
			winners[name] = f
		}
	}
	return out
}

// checkResolution resolves the registry for the session model and reports the engine's
// warnings (unmatched-pattern, no-structured-output, tool-conflict, builtin-override,
// command-conflict). Patterns and conditions were already checked file by file.
func (c *Config) checkResolution() diag.List {
	var out diag.List
	res, err := c.Resolve(ResolveOptions{Model: c.Opts.Model, Headless: true})
	if err != nil {
		return out
	}
	skip := []string{"bad-glob", "bad-expr"}
	for _, d := range append(append(diag.List{}, res.Tools.Diagnostics...), res.Commands.Diagnostics...) {
		if slices.Contains(skip, d.Code) || d.Code == "duplicate-name" {
			continue
		}
		out = append(out, d)
	}
	return out
}
