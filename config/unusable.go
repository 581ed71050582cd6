package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Inputs pigo finds but cannot use (D15, last paragraph): each gets one `not-loaded` info, so
// nothing is ignored silently, and none is an error, so a working pi setup checks clean.

// codeExtExts are the extension files pi runs as code.
var codeExtExts = map[string]string{".ts": "TypeScript", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".mts": "TypeScript", ".cts": "TypeScript"}

// notLoadedCode is the diagnostic code of every input pigo finds and cannot use.
const notLoadedCode = "not-loaded"

func (c *Config) unusableInfo(path string, msg string) {
	c.unusable.Add(diag.FileSpan(diag.NewSource(path, nil)), diag.Info, notLoadedCode, "", msg)
}

// CodeExtension is the warning for an -e path that is a code extension (a .ts/.js file, or a
// folder whose entry is one); "" for anything else.
func CodeExtension(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if st.IsDir() {
		if entry := codeEntry(p); entry != "" {
			return fmt.Sprintf("the extension %s is skipped: it is a code extension (%s) and pigo runs no code extensions, so the tools and commands it registers are missing from the registry (pigo loads declarative .cue, .json and .jsonc extensions)", filepath.Base(p), entry)
		}
		return ""
	}
	if lang, ok := codeExtExts[filepath.Ext(p)]; ok {
		return fmt.Sprintf("the extension %s is skipped: it is a %s extension and pigo runs no code extensions, so the tools and commands it registers are missing from the registry (pigo loads declarative .cue, .json and .jsonc extensions)", filepath.Base(p), lang)
	}
	return ""
}

// discoverUnusable reports, in one agent dir or project overlay, the code extensions, the
// prompt templates in subfolders and the .jsonc twins of pi's JSON files.
func (c *Config) discoverUnusable(dir string, scope Scope) {
	for _, ki := range jsonKinds {
		if ki.globalOnly && scope == Project {
			continue
		}
		twin := strings.TrimSuffix(ki.file, ".json") + ".jsonc"
		if c.knownAbsent(filepath.Join(dir, twin)) {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, twin)); err == nil && !st.IsDir() {
			c.unusableInfo(filepath.Join(dir, twin), fmt.Sprintf("%s is not read: pi and pigo read %s (which may hold comments)", twin, ki.file))
		}
	}
	for _, e := range c.listDir(filepath.Join(dir, "extensions"), scope) {
		st, err := os.Stat(e)
		if err != nil {
			continue
		}
		if st.IsDir() {
			if entry := codeEntry(e); entry != "" {
				c.unusableInfo(e, fmt.Sprintf("%s is a code extension (%s): pigo runs no code extensions, so the tools and commands it registers are missing from the registry",
					filepath.Base(e), entry))
			}
			continue
		}
		if lang, ok := codeExtExts[filepath.Ext(e)]; ok {
			c.unusableInfo(e, fmt.Sprintf("%s is a %s extension: pigo runs no code extensions, so the tools and commands it registers are missing from the registry (pigo loads declarative .cue, .json and .jsonc extensions)",
				filepath.Base(e), lang))
		}
	}
	for _, e := range c.listDir(filepath.Join(dir, "prompts"), scope) {
		if st, err := os.Stat(e); err == nil && st.IsDir() {
			c.nestedPrompts(e, 0)
		}
	}
}

// codeEntry names the entry point of an extension directory as pi finds it, or "".
func codeEntry(dir string) string {
	for _, n := range []string{"index.ts", "index.js", "package.json"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return n
		}
	}
	return ""
}

// nestedPrompts reports the Markdown files below prompts/: pi reads prompts/*.md only.
func (c *Config) nestedPrompts(dir string, depth int) {
	if depth > 8 {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules":
		case e.IsDir():
			c.nestedPrompts(p, depth+1)
		case strings.HasSuffix(e.Name(), ".md"):
			c.unusableInfo(p, "a prompt template in a subfolder is not loaded: pi and pigo read prompts/*.md only, not subfolders")
		}
	}
}

// settingsResources reports the settings `extensions` entries: pi runs them; pigo cannot, so
// what they register is missing from the registry. (Packages: packageDiags.)
func (c *Config) settingsResources(f *File) {
	if v := f.Root.Get("extensions"); v != nil && v.Kind == jsonc.Array {
		for i, e := range v.Elems {
			if e.Kind != jsonc.String || OpenAICostEntry(e.Str) {
				continue // openai-cost's entry loads pigo's built-in provider
			}
			f.Diags.Add(diag.At(f.Src, e.Start, e.End), diag.Info, notLoadedCode, fmt.Sprintf("extensions[%d]", i),
				fmt.Sprintf("extension %q is not loaded: pigo runs no code extensions, so the tools and commands it registers are missing from the registry (declarative extensions go in extensions/ or -e)", e.Str))
		}
	}
}

// declarative reports whether a JSON file in extensions/ looks like a declarative extension
// (D15): a top-level tools or commands key, or a $schema naming pigo's extension schema.
func declarative(root *jsonc.Node) bool {
	if root == nil {
		return true // the syntax error is reported
	}
	if root.Kind != jsonc.Object {
		return false // an array or a scalar is some other program's data
	}
	if root.Member("tools") != nil || root.Member("commands") != nil {
		return true
	}
	if s := root.Get("$schema"); s != nil && s.Kind == jsonc.String && strings.Contains(s.Str, "pigo") && strings.Contains(s.Str, "extension") {
		return true
	}
	return false
}

// notDeclarative marks a JSON file in extensions/ that is not a declarative extension: another
// extension's config (in a known dialect: foreign-dialect), a package.json or a tsconfig.json.
func (c *Config) notDeclarative(f *File) {
	f.Applied = false
	base := filepath.Base(f.Path)
	for _, k := range []Kind{Sandbox, LSP} {
		if strings.TrimSuffix(base, filepath.Ext(base)) != strings.TrimSuffix(FileName(k), ".json") {
			continue
		}
		if d := detectDialect(k, f.Root); d != nil && !d.legacy {
			f.Dialect = d.name
			f.Diags.Add(diag.FileSpan(f.Src), diag.Info, "foreign-dialect", "",
				fmt.Sprintf("%s is another extension's config file, %s; it is not a declarative extension and pigo does not load it", base, d.says))
			return
		}
	}
	what := "it has no top-level \"tools\" or \"commands\""
	switch base {
	case "package.json":
		what = "it is an npm package manifest"
	case "tsconfig.json", "jsconfig.json":
		what = "it is a TypeScript project file"
	}
	f.Diags.Add(diag.FileSpan(f.Src), diag.Info, notLoadedCode, "",
		fmt.Sprintf("%s is not a declarative extension (%s); pigo does not load it", base, what))
}

// oversizeExtension reports (as an info) a JSON file in extensions/ too large to read: a
// package-lock.json of a code extension, not a declarative extension, so never an error.
func (c *Config) oversizeExtension(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Size() <= MaxFileSize || filepath.Ext(path) == ".cue" {
		return false
	}
	c.unusableInfo(path, fmt.Sprintf("%s is not read as a declarative extension: it is %d bytes, more than pigo reads (%d); pigo does not load it",
		filepath.Base(path), st.Size(), MaxFileSize))
	return true
}
