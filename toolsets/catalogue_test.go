package toolsets

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/encoding/jsonschema"
	"github.com/google/go-cmp/cmp"
	"github.com/pigo-agent/pigo/internal/cond"
)

// extension mirrors the fields of #Extension that these tests inspect.
type extension struct {
	Name              string `json:"name"`
	Builtin           bool   `json:"builtin"`
	FileIO            string `json:"fileIo"`
	OverridesBuiltins bool   `json:"overridesBuiltins"`
	Tools             []tool `json:"tools"`
}

// tool mirrors the fields of #Tool that these tests inspect.
type tool struct {
	Name             string         `json:"name"`
	Label            string         `json:"label"`
	Description      string         `json:"description"`
	PromptSnippet    string         `json:"promptSnippet"`
	PromptGuidelines []string       `json:"promptGuidelines"`
	Parameters       map[string]any `json:"parameters"`
	Output           map[string]any `json:"output"`
	CodemodeOnly     bool           `json:"codemodeOnly"`
	Unit             string         `json:"unit"`
	When             string         `json:"when"`
}

// loaded is one embedded file after validation against #Extension.
type loaded struct {
	file string
	ext  extension
}

// extensionDef compiles schema/declarations.cue on its own and returns its
// #Extension definition.
func extensionDef(t *testing.T, ctx *cue.Context) cue.Value {
	t.Helper()
	src, err := os.ReadFile("../schema/declarations.cue")
	if err != nil {
		t.Fatal(err)
	}
	schema := ctx.CompileBytes(src, cue.Filename("declarations.cue"))
	if err := schema.Err(); err != nil {
		t.Fatalf("schema: %s", errors.Details(err, nil))
	}
	def := schema.LookupPath(cue.ParsePath("#Extension"))
	if err := def.Err(); err != nil {
		t.Fatalf("#Extension: %v", err)
	}
	return def
}

// loadAll validates every embedded file against #Extension, concretely, and
// decodes it; files come back in Order.
func loadAll(t *testing.T) []loaded {
	t.Helper()
	ctx := cuecontext.New()
	def := extensionDef(t, ctx)
	var out []loaded
	for _, name := range Order {
		src, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v := def.Unify(ctx.CompileBytes(src, cue.Filename(name)))
		if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
			t.Fatalf("%s does not validate:\n%s", name, errors.Details(err, nil))
		}
		raw, err := v.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var ext extension
		if err := json.Unmarshal(raw, &ext); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, loaded{file: name, ext: ext})
	}
	return out
}

func TestSchemaRejectsBadDeclarations(t *testing.T) {
	ctx := cuecontext.New()
	def := extensionDef(t, ctx)
	tests := []struct {
		name, src, want string
	}{
		{"unknown field", `tools: [{name: "x", description: "d", parameters: {type: "object"}, snipet: "s"}]`, "field not allowed"},
		{"array parameters", `tools: [{name: "x", description: "d", parameters: {type: "array"}}]`, `conflicting values "object" and "array"`},
		{"bad tool name", `tools: [{name: "1x", description: "d", parameters: {type: "object"}}]`, "invalid value"},
		{"bad fileIo", `fileIo: "vim"`, "conflicting values"},
		{"missing parameters", `tools: [{name: "x", description: "d"}]`, "field is required but not present"},
		{"empty exec", `tools: [{name: "x", description: "d", parameters: {type: "object"}, exec: []}]`, "MinItems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := def.Unify(ctx.CompileString(tt.src))
			err := v.Validate(cue.Concrete(true), cue.Final())
			if err == nil {
				t.Fatalf("accepted %s", tt.src)
			}
			if got := errors.Details(err, nil); !strings.Contains(got, tt.want) {
				t.Errorf("error %q does not mention %q", got, tt.want)
			}
		})
	}
}

// TestSchemaHasNoLossyConstructs keeps the declaration schema free of the two
// constructs that JSON Schema generation turns into "accept anything": open
// `...` structs and `if` comprehensions. It also checks that every field has
// a doc comment.
func TestSchemaHasNoLossyConstructs(t *testing.T) {
	f, err := parser.ParseFile("../schema/declarations.cue", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructLit:
			for _, e := range n.Elts {
				if _, ok := e.(*ast.Ellipsis); ok {
					t.Errorf("%s: open struct", e.Pos())
				}
			}
		case *ast.Comprehension:
			t.Errorf("%s: comprehension", n.Pos())
		case *ast.Field:
			// Pattern constraints such as {[string]: _} are not fields.
			if _, pattern := n.Label.(*ast.ListLit); !pattern && len(ast.Comments(n)) == 0 {
				t.Errorf("%s: field without a doc comment", n.Pos())
			}
		}
		return true
	}, nil)
}

// TestJSONSchemaGenerates checks that the editor JSON Schema generated from
// #Extension marshals (a doc comment on a pattern constraint once broke it)
// and keeps the parameters' "type": "object" requirement.
func TestJSONSchemaGenerates(t *testing.T) {
	ctx := cuecontext.New()
	expr, err := jsonschema.Generate(extensionDef(t, ctx), &jsonschema.GenerateConfig{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ctx.BuildExpr(expr).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Required []string `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Defs["ObjectSchema"].Required; !slices.Contains(got, "type") {
		t.Errorf("ObjectSchema.required = %q, want type", got)
	}
	if got := doc.Defs["Tool"].Required; !slices.Contains(got, "parameters") {
		t.Errorf("Tool.required = %q, want parameters", got)
	}
}

func TestOrderListsEveryFileOnce(t *testing.T) {
	files, err := fs.Glob(FS, "*.cue")
	if err != nil {
		t.Fatal(err)
	}
	order := slices.Clone(Order)
	sort.Strings(order)
	if diff := cmp.Diff(files, order); diff != "" {
		t.Errorf("Order vs embedded files (-files +order):\n%s", diff)
	}
	if Order[0] != "pi.cue" {
		t.Errorf("Order starts with %q, want pi.cue", Order[0])
	}
}

func TestEveryFileValidates(t *testing.T) {
	for _, l := range loadAll(t) {
		if len(l.ext.Tools) == 0 {
			t.Errorf("%s declares no tools", l.file)
		}
		if want := strings.TrimSuffix(l.file, ".cue"); l.ext.Name != want {
			t.Errorf("%s: name %q, want %q", l.file, l.ext.Name, want)
		}
		if l.ext.Builtin != (l.file == "pi.cue") {
			t.Errorf("%s: builtin = %v", l.file, l.ext.Builtin)
		}
	}
}

// documentedOverrides are the tool names declared twice in the catalogue on
// purpose: the opencode toolset overrides these pi built-ins by design.
var documentedOverrides = map[string][]string{
	"read":  {"opencode.cue", "pi.cue"},
	"edit":  {"opencode.cue", "pi.cue"},
	"write": {"opencode.cue", "pi.cue"},
	"bash":  {"opencode.cue", "pi.cue"},
	"grep":  {"opencode.cue", "pi.cue"},
}

func TestToolNamesUnique(t *testing.T) {
	where := map[string][]string{}
	for _, l := range loadAll(t) {
		for _, tl := range l.ext.Tools {
			where[tl.Name] = append(where[tl.Name], l.file)
		}
	}
	dups := map[string][]string{}
	for name, files := range where {
		if len(files) > 1 {
			sort.Strings(files)
			dups[name] = files
		}
	}
	if diff := cmp.Diff(documentedOverrides, dups); diff != "" {
		t.Errorf("duplicate tool names (-want +got):\n%s", diff)
	}
}

func TestToolNamesPerFile(t *testing.T) {
	want := map[string][]string{
		// In the seed's registration order (search.ts registers glob before grep).
		"pi.cue":          {"read", "bash", "edit", "write", "grep", "find", "ls", "powershell"},
		"claude-code.cue": {"Read", "Edit", "Write", "Glob", "Grep", "Bash", "TodoWrite", "AskUserQuestion"},
		"opencode.cue":    {"read", "edit", "write", "glob", "grep", "bash", "todowrite", "question"},
		"lsp.cue":         {"lsp-rename", "lsp-inspect", "lsp-find-definition", "lsp-find-reference"},
		"aft.cue":         {"aft_outline", "aft_zoom", "aft_callgraph", "aft_search"},
		"web.cue":         {"web_search", "web_fetch"},
		"talk.cue":        {"talk-list-agents", "talk-ask", "talk-send", "talk-reply"},
		"spawn-agent.cue": {"spawn-agent"},
		"vision.cue":      {"describe_image"},
		"codemode.cue":    {"codemode"},
	}
	got := map[string][]string{}
	for _, l := range loadAll(t) {
		if l.file == "github.cue" {
			continue
		}
		for _, tl := range l.ext.Tools {
			got[l.file] = append(got[l.file], tl.Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool names per file (-want +got):\n%s", diff)
	}
}

func TestPiBuiltinTexts(t *testing.T) {
	type texts struct {
		Snippet    string
		Guidelines int
	}
	want := map[string]texts{
		"read":       {"Read file contents", 1},
		"bash":       {"Execute bash commands (ls, grep, find, etc.)", 1},
		"edit":       {"Make precise file edits with exact text replacement, including multiple disjoint edits in one call", 4},
		"write":      {"Create or overwrite files", 1},
		"grep":       {"Search file contents for patterns (respects .gitignore)", 0},
		"find":       {"Find files by glob pattern (respects .gitignore)", 0},
		"ls":         {"List directory contents", 0},
		"powershell": {"Execute PowerShell commands", 1},
	}
	got := map[string]texts{}
	for _, l := range loadAll(t) {
		if l.file != "pi.cue" {
			continue
		}
		for _, tl := range l.ext.Tools {
			got[tl.Name] = texts{tl.PromptSnippet, len(tl.PromptGuidelines)}
			if tl.Label != tl.Name {
				t.Errorf("%s: label %q, want the name", tl.Name, tl.Label)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pi built-in texts (-want +got):\n%s", diff)
	}
}

func TestUnitsAndFileToolsets(t *testing.T) {
	want := map[string]map[string]string{
		"claude-code.cue": {
			"Read": "Read/Edit/Write", "Edit": "Read/Edit/Write", "Write": "Read/Edit/Write",
			"Grep": "Glob/Grep", "Glob": "Glob/Grep", "Bash": "Bash",
			"TodoWrite": "TodoWrite/AskUserQuestion", "AskUserQuestion": "TodoWrite/AskUserQuestion",
		},
		"opencode.cue": {
			"read": "read/edit/write", "edit": "read/edit/write", "write": "read/edit/write",
			"grep": "glob/grep", "glob": "glob/grep", "bash": "bash",
			"todowrite": "todowrite/question", "question": "todowrite/question",
		},
	}
	for _, l := range loadAll(t) {
		units, isFileIO := want[l.file]
		if isFileIO != (l.ext.FileIO != "") {
			t.Errorf("%s: fileIo %q", l.file, l.ext.FileIO)
		}
		if l.ext.OverridesBuiltins != (l.file == "opencode.cue") {
			t.Errorf("%s: overridesBuiltins = %v", l.file, l.ext.OverridesBuiltins)
		}
		for _, tl := range l.ext.Tools {
			if !isFileIO {
				continue
			}
			if tl.Unit != units[tl.Name] {
				t.Errorf("%s %s: unit %q, want %q", l.file, tl.Name, tl.Unit, units[tl.Name])
			}
			// A unit names its own members, so every member is in its unit.
			if !slices.Contains(strings.Split(tl.Unit, "/"), tl.Name) {
				t.Errorf("%s %s: unit %q does not name it", l.file, tl.Name, tl.Unit)
			}
		}
	}
}

func TestGitHubTools(t *testing.T) {
	want := []string{
		"read-github-issue", "list-github-issues", "read-github-issue-comments",
		"read-github-pr", "list-github-prs", "read-github-pr-diff", "read-github-pr-status",
		"read-github-pr-comments", "read-github-ci-logs", "list-github-workflow-runs",
		"get-github-workflow-jobs", "read-github-repo", "list-github-releases",
		"read-github-release", "download-github-release-assets", "wait-github-pr-checks",
		"wait-github-commit-checks", "watch-github-run",
	}
	var got []string
	for _, l := range loadAll(t) {
		for _, tl := range l.ext.Tools {
			if strings.Contains(tl.Name, "github") {
				if l.file != "github.cue" {
					t.Errorf("%s declares GitHub tool %s", l.file, tl.Name)
				}
				got = append(got, tl.Name)
				if tl.Output == nil || !tl.CodemodeOnly {
					t.Errorf("%s: structured=%v codemodeOnly=%v, want both", tl.Name, tl.Output != nil, tl.CodemodeOnly)
				}
				if tl.When != `which("gh") && os != "windows"` {
					t.Errorf("%s: when %q", tl.Name, tl.When)
				}
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GitHub tools (-want +got):\n%s", diff)
	}
}

func TestStructuredTools(t *testing.T) {
	// Every structured tool outside github.cue, by name; all others must not
	// declare an output.
	want := []string{
		"Bash", "bash",
		"aft_outline", "aft_zoom", "aft_callgraph", "aft_search",
		"lsp-inspect", "lsp-find-definition", "lsp-find-reference",
	}
	var got []string
	for _, l := range loadAll(t) {
		for _, tl := range l.ext.Tools {
			if l.file == "github.cue" {
				continue
			}
			if tl.Output != nil {
				got = append(got, tl.Name)
			}
			if tl.CodemodeOnly {
				t.Errorf("%s is codemode-only outside github.cue", tl.Name)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("structured tools (-want +got):\n%s", diff)
	}
}

// checkSchema walks a JSON Schema and reports every object schema whose
// required names are not among its properties, every property without a
// type, and every array without items.
func checkSchema(t *testing.T, where string, s map[string]any) {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				t.Errorf("%s: required %q is not a property", where, r)
			}
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("%s.%s: not a schema", where, name)
			continue
		}
		_, typed := p["type"]
		_, anyOf := p["anyOf"]
		_, constant := p["const"]
		if !typed && !anyOf && !constant {
			t.Errorf("%s.%s: no type", where, name)
		}
		checkSchema(t, where+"."+name, p)
	}
	if s["type"] == "array" {
		items, ok := s["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: array without items", where)
			return
		}
		checkSchema(t, where+"[]", items)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			checkSchema(t, where+"|"+string(rune('0'+i)), a.(map[string]any))
		}
	}
}

func TestToolSchemas(t *testing.T) {
	for _, l := range loadAll(t) {
		for _, tl := range l.ext.Tools {
			where := path.Join(strings.TrimSuffix(l.file, ".cue"), tl.Name)
			if tl.Parameters["type"] != "object" {
				t.Errorf("%s: parameters are not an object schema", where)
			}
			checkSchema(t, where+".parameters", tl.Parameters)
			if tl.Output != nil {
				checkSchema(t, where+".output", tl.Output)
			}
			if tl.Label == "" || tl.PromptSnippet == "" {
				t.Errorf("%s: label %q, promptSnippet %q", where, tl.Label, tl.PromptSnippet)
			}
			// pi's built-ins and the seed's talk tools declare no guidelines.
			if l.file != "pi.cue" && l.file != "talk.cue" && len(tl.PromptGuidelines) == 0 {
				t.Errorf("%s: no promptGuidelines", where)
			}
			for _, g := range tl.PromptGuidelines {
				// Guidelines carry no tool prefix, so each names its tool.
				if !strings.Contains(g, tl.Name) && !strings.Contains(g, "PI_*") {
					t.Errorf("%s: guideline does not name the tool: %q", where, g)
				}
			}
		}
	}
}

func TestWhenConditions(t *testing.T) {
	onPath := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	linux := cond.Env{
		Model:    cond.Model{Provider: "zhipu", ID: "glm-4.6", Input: []string{"text"}},
		OS:       "linux",
		Arch:     "amd64",
		Settings: map[string]any{"visionConfig": map[string]any{"model": "mimo-v2.5"}},
		Env:      map[string]string{},
		Which:    onPath("gh", "aft"),
		LSP:      cond.LSP{Servers: []string{"gopls"}},
		AFT:      cond.AFT{Found: true},
		Vision:   cond.Vision{Resolved: true},
	}
	bare := cond.Env{
		Model:    cond.Model{Provider: "openai", ID: "gpt-5", Input: []string{"text", "image"}},
		OS:       "windows",
		Arch:     "arm64",
		Settings: map[string]any{},
		Env:      map[string]string{},
		Which:    onPath("gh"),
	}
	// Each condition's value in the two environments above.
	want := map[string][2]bool{
		"powershell":     {false, true},
		"lsp-rename":     {true, false},
		"aft_outline":    {true, false},
		"aft_search":     {false, false},
		"read-github-pr": {true, false},
		"spawn-agent":    {true, false},
		"describe_image": {true, false},
	}
	got := map[string][2]bool{}
	for _, l := range loadAll(t) {
		for _, tl := range l.ext.Tools {
			if tl.When == "" {
				continue
			}
			// The engine's own condition compiler: the environment is the one sessions use.
			prog, err := cond.Compile(tl.When)
			if err != nil {
				t.Errorf("%s %s: when %q: %v", l.file, tl.Name, tl.When, err)
				continue
			}
			if _, ok := want[tl.Name]; !ok {
				continue
			}
			var res [2]bool
			for i, env := range []cond.Env{linux, bare} {
				out, err := cond.Eval(prog, env)
				if err != nil {
					t.Fatalf("%s: run %q: %v", tl.Name, tl.When, err)
				}
				res[i] = out
			}
			got[tl.Name] = res
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("condition values (-want +got):\n%s", diff)
	}
}

// BenchmarkValidateCatalogue measures what a process pays to compile the
// declaration schema and validate and decode the whole shipped catalogue.
func BenchmarkValidateCatalogue(b *testing.B) {
	src, err := os.ReadFile("../schema/declarations.cue")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ctx := cuecontext.New()
		def := ctx.CompileBytes(src).LookupPath(cue.ParsePath("#Extension"))
		for _, name := range Order {
			data, _ := fs.ReadFile(FS, name)
			v := def.Unify(ctx.CompileBytes(data, cue.Filename(name)))
			if err := v.Validate(cue.Concrete(true)); err != nil {
				b.Fatal(err)
			}
			var ext extension
			if err := v.Decode(&ext); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestSnippetsDoNotRepeatTheName: the system prompt writes "- <name>: <snippet>", so a
// snippet that starts with its own name shows it twice ("- codemode: codemode: …").
func TestSnippetsDoNotRepeatTheName(t *testing.T) {
	for _, l := range loadAll(t) {
		for _, tl := range l.ext.Tools {
			if strings.HasPrefix(strings.ToLower(tl.PromptSnippet), strings.ToLower(tl.Name)+":") {
				t.Errorf("%s %s: promptSnippet %q starts with the tool's name", l.file, tl.Name, tl.PromptSnippet)
			}
		}
	}
}
