package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/commands"
	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/validate"
	"github.com/pigo-agent/pigo/toolsets"
)

// AddEmbedded adds the shipped declarations (toolsets/*.cue, commands/*.cue) as builtin files.
// They are not validated again: they cannot change without a rebuild, and the build's tests
// validate them fully (TestEmbeddedClean, through CheckEmbedded) and keep the catalogue the
// run-time commands use in step with them. Validating them took 44% of every `pigo check`.
func (c *Config) AddEmbedded() {
	for _, f := range embeddedFiles() {
		f.checked = !f.Broken
		c.Files = append(c.Files, f)
	}
	c.sortFiles()
}

// CheckEmbedded validates the shipped declarations as a user's CUE extension is validated
// (schema, conditions, patterns) and returns the diagnostics; a build must give none.
func (c *Config) CheckEmbedded() diag.List {
	s, err := validate.Load()
	if err != nil {
		return diag.List{{Span: diag.FileSpan(diag.NewSource("schema", nil)), Severity: diag.Error, Code: "internal", Message: err.Error()}}
	}
	var out diag.List
	for _, f := range embeddedFiles() {
		c.checkFile(s, f)
		out = append(out, f.Diags...)
	}
	return out.Sort()
}

func embeddedFiles() []*File {
	var out []*File
	add := func(fsys fs.FS, order []string, dir string, kind Kind) {
		for _, name := range order {
			data, err := fs.ReadFile(fsys, name)
			f := &File{Path: dir + "/" + name, Kind: kind, Scope: Builtin, Applied: true, Src: diag.NewSource(dir+"/"+name, data)}
			f.Name = strings.TrimSuffix(name, ".cue")
			if err != nil {
				f.Broken = true
				f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "io", "", err.Error())
			}
			out = append(out, f)
		}
	}
	add(toolsets.FS, toolsets.Order, "toolsets", Toolset)
	add(commands.FS, commands.Order, "commands", Command)
	return out
}

// Check validates every loaded file and returns all diagnostics, sorted. Files found broken are
// marked so that run-time commands skip them.
func (c *Config) Check() diag.List {
	s, err := validate.Load()
	out := append(append(diag.List(nil), c.Diags...), c.unusable...)
	if err != nil {
		out.Add(diag.FileSpan(diag.NewSource("schema", nil)), diag.Error, "internal", "", err.Error())
		return out
	}
	for _, f := range c.Files {
		c.checkFile(s, f)
		out = append(out, f.Diags...)
	}
	out = append(out, c.crossChecks()...)
	return out.Sort()
}

func (c *Config) checkFile(s *validate.Schema, f *File) {
	if f.checked {
		return
	}
	f.checked = true
	defer func() {
		// A file with errors is not applied, except settings.json, which is read leniently
		// (the entries in error are skipped, as pi and the seed do).
		if !lenient(f.Kind) && f.Diags.HasErrors() {
			f.Applied = false
		}
		// A package's files are someone else's: their problems are warnings (the file is still
		// skipped), never errors of the user's configuration (D26).
		if f.Package != nil {
			for i := range f.Diags {
				if f.Diags[i].Severity == diag.Error {
					f.Diags[i].Severity = diag.Warning
				}
			}
		}
	}()
	if f.Broken && f.Root == nil && f.Src.Text == nil {
		return
	}
	if f.Kind == Toolset || f.Kind == Command || (f.Kind == Extension && filepath.Ext(f.Path) == ".cue") {
		c.checkCUE(f)
		return
	}
	if f.Broken || f.Root == nil {
		if f.Kind == Agent && f.Doc != nil && !f.Doc.Present {
			f.Broken, f.Applied = true, false
		}
		c.checkMarkdownAbsent(f)
		return
	}
	switch f.Kind {
	case Agent, Prompt, Skill:
		c.checkMarkdown(s, f)
	case Extension:
		if !declarative(f.Root) {
			c.notDeclarative(f)
			return
		}
		f.Diags = append(f.Diags, c.schemaCheck(f, f.Root, Definition(f.Kind), validate.Options{Mode: validate.Declaration})...)
		c.semantic(f)
	default:
		if f.Root.Kind != jsonc.Object {
			f.Diags.Add(diag.At(f.Src, f.Root.Start, f.Root.End), diag.Error, "schema", "", fmt.Sprintf("expected an object at the top level, got %s", f.Root.Kind))
			f.Applied = false
			return
		}
		if f.Legacy {
			f.Applied = false
			f.Diags.Add(diag.FileSpan(f.Src), diag.Warning, "legacy-file", "",
				"bwrap.json is the seed's older file name: pigo reads sandbox.json and ignores this file; rename it (`pigo config migrate sandbox` rewrites it)")
		}
		if d := detectDialect(f.Kind, f.Root); d != nil {
			f.Dialect = d.name
			if d.legacy {
				f.Applied = false
				w := f.Diags.Add(diag.FileSpan(f.Src), diag.Warning, "legacy-shape", "", d.says+": pigo does not apply it")
				w.Hint = "`pigo config migrate sandbox` rewrites it into the current shape: " + migrationSummary(f.Root)
			} else {
				f.Applied = false
				f.Diags.Add(diag.FileSpan(f.Src), diag.Info, "foreign-dialect", "", fmt.Sprintf("%s is %s", filepath.Base(f.Path), d.says))
			}
			return
		}
		f.Diags = append(f.Diags, c.schemaCheck(f, f.Root, Definition(f.Kind), validate.Options{Mode: validate.UserConfig})...)
		c.semantic(f)
	}
}

func (c *Config) checkMarkdownAbsent(f *File) {
	if f.Doc == nil || f.Doc.Present || f.Broken && f.Src.Text == nil {
		return
	}
	switch f.Kind {
	case Agent:
		f.Diags.Add(diag.At(f.Src, 0, 0), diag.Warning, "no-frontmatter", "",
			"not a sub-agent definition: the file has no YAML frontmatter (--- name, description ---); it is skipped")
		f.Broken, f.Applied = true, false
	case Skill:
		f.Diags.Add(diag.At(f.Src, 0, 0), diag.Warning, "no-frontmatter", "", "description is required: the skill has no frontmatter and is skipped")
		f.Broken, f.Applied = true, false
	}
}

var skillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]+$`) })

func (c *Config) checkMarkdown(s *validate.Schema, f *File) {
	root := f.Root
	var skip []string
	key := func(k string) *jsonc.Member { return root.Member(k) }
	// argument-hint written as [message] is a YAML list: say to quote it (prompts and skills).
	if m := key("argument-hint"); m != nil && (f.Kind == Prompt || f.Kind == Skill) && m.Value.Kind == jsonc.Array {
		w := f.Diags.Add(diag.At(f.Src, m.Value.Start, m.Value.End), diag.Warning, "argument-hint-list", "argument-hint",
			"argument-hint parses as a YAML list, not text: the hint would be lost")
		w.Hint = fmt.Sprintf("quote it: argument-hint: %q", "["+joinScalars(m.Value)+"]")
		skip = append(skip, "argument-hint")
	}
	switch f.Kind {
	case Agent:
		if root.Member("name") == nil {
			f.Diags.Add(diag.At(f.Src, root.Start, root.Start+3), diag.Info, "default-name", "name",
				fmt.Sprintf("no name: the agent is called %q after its file", f.Name))
		} else if n := root.Get("name"); n.Kind == jsonc.String && n.Str != "" {
			f.Name = n.Str
		}
		blankTools(f, key("tools"))
		if m := key("thinking"); m != nil {
			if key("thinkingLevel") != nil {
				f.Diags.Add(diag.At(f.Src, m.KeyStart, m.KeyEnd), diag.Warning, "duplicate-key", "thinking",
					"both thinking and thinkingLevel are set: thinkingLevel wins")
			} else {
				f.Diags.Add(diag.At(f.Src, m.KeyStart, m.KeyEnd), diag.Info, "alias", "thinking", "thinking is read as thinkingLevel")
			}
		}
	case Skill:
		if n := root.Get("name"); n != nil && n.Kind == jsonc.String {
			f.Name = n.Str
			c.skillNameRules(f, n)
		}
		if d := root.Get("description"); d != nil && d.Kind == jsonc.String && len(d.Str) > 1024 {
			f.Diags.Add(diag.At(f.Src, d.Start, d.End), diag.Warning, "skill-description", "description",
				fmt.Sprintf("description exceeds 1024 characters (%d)", len(d.Str)))
		}
	case Prompt:
		if n := root.Get("description"); n == nil {
			f.Name = resourceName(f.Path, Prompt)
		}
	}
	ds := c.schemaCheck(f, root, Definition(f.Kind), validate.Options{Mode: validate.UserConfig, Skip: skip})
	for i := range ds {
		d := &ds[i]
		// pi warns and skips a skill without a description; it is not a broken file.
		if f.Kind == Skill && d.Path == "description" && strings.Contains(d.Message, "missing required field") {
			d.Severity, d.Code = diag.Warning, "skill-description"
			d.Message = "description is required: the skill is skipped"
			f.Applied = false
		}
	}
	f.Diags = append(f.Diags, ds...)
	if f.Diags.HasErrors() {
		f.Broken, f.Applied = true, false
	}
}

func (c *Config) skillNameRules(f *File, n *jsonc.Node) {
	sp := diag.At(f.Src, n.Start, n.End)
	name := n.Str
	folder := filepath.Base(filepath.Dir(f.Path))
	if name != folder && !c.packagedSkill(f) {
		f.Diags.Add(sp, diag.Warning, "skill-name", "name", fmt.Sprintf("name %q differs from its folder %q", name, folder))
	}
	if len(name) > 64 {
		f.Diags.Add(sp, diag.Warning, "skill-name", "name", fmt.Sprintf("name exceeds 64 characters (%d)", len(name)))
	}
	if !skillName().MatchString(name) {
		f.Diags.Add(sp, diag.Warning, "skill-name", "name", "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		f.Diags.Add(sp, diag.Warning, "skill-name", "name", "name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		f.Diags.Add(sp, diag.Warning, "skill-name", "name", "name must not contain consecutive hyphens")
	}
}

func joinScalars(n *jsonc.Node) string {
	var parts []string
	for _, e := range n.Elems {
		switch e.Kind {
		case jsonc.String:
			parts = append(parts, e.Str)
		case jsonc.Number:
			parts = append(parts, e.Num)
		}
	}
	return strings.Join(parts, ", ")
}

// evalCUE evaluates a CUE extension file; the pigo-cue helper does it (pigo does not link
// CUE). Tests replace it to count evaluations.
var evalCUE = cuehelper.Eval

// checkCUE evaluates a CUE declaration file against #Extension, in the pigo-cue helper.
func (c *Config) checkCUE(f *File) {
	r, err := evalCUE(f.Src.Name, f.Src.Text)
	switch {
	case errors.Is(err, cuehelper.ErrLimit):
		f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "eval-limit", "", cuehelper.LimitMessage())
	case errors.Is(err, cuehelper.ErrNotFound):
		f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "cue-helper", "", "evaluating a CUE extension needs the "+cuehelper.Name+" helper, which is not installed beside pigo or on PATH; the file is not applied").Hint =
			"install it with `go install github.com/pigo-agent/pigo/cmd/" + cuehelper.Name + "@latest` (or set $" + cuehelper.EnvPath + ")"
	case err != nil:
		f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "internal", "", err.Error())
	case len(r.Diags) > 0 || r.Root == nil:
		f.Diags = append(f.Diags, r.List(f.Src)...)
	default:
		f.Root = r.Root
		c.semantic(f)
		return
	}
	f.Broken, f.Applied = true, false
}

// migrationSummary says in one line what `pigo config migrate sandbox` does with a flat file.
func migrationSummary(root *jsonc.Node) string {
	var parts []string
	if m := root.Get("mode"); m != nil && m.Kind == jsonc.String {
		fsm, net := legacyModes(m.Str)
		parts = append(parts, fmt.Sprintf("mode %q → fs.mode %q, network.mode %q", m.Str, fsm, net))
	}
	for _, k := range []struct{ from, to string }{
		{"writablePaths", "fs.writablePaths"}, {"extraWritablePaths", "fs.extraWritablePaths"},
		{"tmpfsPaths", "fs.denyPaths (each with a trailing /)"}, {"networkAllowlist", "network.allowlist"},
	} {
		if root.Get(k.from) != nil {
			parts = append(parts, k.from+" → "+k.to)
		}
	}
	if len(parts) == 0 {
		return "no change of meaning"
	}
	return strings.Join(parts, "; ")
}

// legacyModes maps the flat bwrap.json mode onto the two axes.
func legacyModes(mode string) (fsMode, netMode string) {
	switch mode {
	case "allow-all":
		return "allow-all", "allow-all"
	case "readonly":
		return "readonly", "block"
	case "allow-net":
		return "workspace-write", "allow-all"
	case "net-allowlist":
		return "workspace-write", "limited"
	}
	return "workspace-write", "block"
}

// blankTools reports the empty entries of an agent's `tools` ("read, , bash", a trailing
// comma, an empty list item): they name no tool and are dropped, never silently.
func blankTools(f *File, m *jsonc.Member) {
	if m == nil {
		return
	}
	n := m.Value
	switch n.Kind {
	case jsonc.String:
		if strings.TrimSpace(n.Str) == "" {
			return
		}
		for i, s := range strings.Split(n.Str, ",") {
			if strings.TrimSpace(s) == "" {
				f.Diags.Add(diag.At(f.Src, n.Start, n.End), diag.Info, "blank-tool", "tools",
					fmt.Sprintf("tools: entry %d of %q is blank; it names no tool and is dropped", i+1, n.Str))
			}
		}
	case jsonc.Array:
		for i, e := range n.Elems {
			if e.Kind == jsonc.String && strings.TrimSpace(e.Str) == "" || e.Kind == jsonc.Null {
				f.Diags.Add(diag.At(f.Src, e.Start, e.End), diag.Info, "blank-tool", fmt.Sprintf("tools[%d]", i),
					fmt.Sprintf("tools[%d] is blank; it names no tool and is dropped", i))
			}
		}
	}
}
