package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/jsonschema"
	"github.com/google/go-cmp/cmp"
)

// kinds maps the file-name prefix used in testdata to the definition that
// validates that kind of file.
var kinds = map[string]string{
	"settings":     "#Settings",
	"sandbox":      "#Sandbox",
	"legacy-bwrap": "#LegacyBwrap",
	"lsp":          "#LSP",
	"models":       "#Models",
	"spawn-agent":  "#SpawnAgent",
	"proxy":        "#Proxy",
	"openai-cost":  "#OpenAICost",
	"web-search":   "#WebSearch",
	"trust":        "#Trust",
	"mcp":          "#MCP",
	"agent":        "#AgentFrontmatter",
	"prompt":       "#PromptFrontmatter",
	"skill":        "#SkillFrontmatter",
}

// ownFiles are the schema files this package's tests hold to the house rules;
// declarations.cue belongs to another part of the project and is only
// compiled together with them.
func ownFiles() []string {
	var names []string
	for _, n := range Files() {
		if n != "declarations.cue" {
			names = append(names, n)
		}
	}
	return names
}

// compile builds every embedded schema file as one CUE package.
func compile(t testing.TB) cue.Value {
	t.Helper()
	inst := build.NewContext().NewInstance("", nil)
	for _, name := range Files() {
		src, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := inst.AddFile(name, src); err != nil {
			t.Fatalf("%s: %v", name, errors.Details(err, nil))
		}
	}
	v := cuecontext.New().BuildInstance(inst)
	if err := v.Err(); err != nil {
		t.Fatalf("schema does not compile:\n%s", errors.Details(err, nil))
	}
	if err := v.Validate(); err != nil {
		t.Fatalf("schema does not validate:\n%s", errors.Details(err, nil))
	}
	return v
}

// definitions returns every top-level definition of the package by name.
func definitions(t testing.TB, v cue.Value) map[string]cue.Value {
	t.Helper()
	defs := map[string]cue.Value{}
	it, err := v.Fields(cue.Definitions(true))
	if err != nil {
		t.Fatal(err)
	}
	for it.Next() {
		if it.Selector().IsDefinition() {
			defs[it.Selector().String()] = it.Value()
		}
	}
	return defs
}

// ownDefinitions returns the definitions declared in this package's own files.
func ownDefinitions(t testing.TB, v cue.Value) map[string]cue.Value {
	t.Helper()
	own := map[string]cue.Value{}
	for name, d := range definitions(t, v) {
		if filepath.Base(d.Pos().Filename()) != "declarations.cue" {
			own[name] = d
		}
	}
	return own
}

type field struct {
	name     string
	value    cue.Value
	required bool
}

// fields lists the regular, optional and required fields of a struct value.
func fields(t testing.TB, v cue.Value) []field {
	t.Helper()
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		t.Fatal(err)
	}
	var out []field
	for it.Next() {
		sel := it.Selector()
		out = append(out, field{
			name:     sel.Unquoted(),
			value:    it.Value(),
			required: sel.ConstraintType() == cue.RequiredConstraint,
		})
	}
	return out
}

func isStruct(v cue.Value) bool { return v.IncompleteKind() == cue.StructKind }

// validate checks data (JSON) against the definition def.
func validate(t testing.TB, v cue.Value, def, name string, data []byte) error {
	t.Helper()
	expr, err := cuejson.Extract(name, data)
	if err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	d := v.LookupPath(cue.ParsePath(def))
	if !d.Exists() {
		t.Fatalf("%s: definition %s not found", name, def)
	}
	return d.Unify(v.Context().BuildExpr(expr)).Validate(cue.Concrete(true))
}

// kindOf returns the definition for a testdata file named KIND.CASE.json.
func kindOf(t testing.TB, file string) string {
	t.Helper()
	prefix, _, _ := strings.Cut(filepath.Base(file), ".")
	def, ok := kinds[prefix]
	if !ok {
		t.Fatalf("%s: unknown kind prefix %q", file, prefix)
	}
	return def
}

func TestFilesSortedAndComplete(t *testing.T) {
	got := Files()
	if !sort.StringsAreSorted(got) {
		t.Errorf("Files() not sorted: %v", got)
	}
	want := []string{"common.cue", "frontmatter.cue", "lsp.cue", "mcp.cue", "models.cue", "openaicost.cue",
		"proxy.cue", "sandbox.cue", "settings.cue", "spawnagent.cue", "trust.cue", "websearch.cue"}
	if diff := cmp.Diff(want, ownFiles()); diff != "" {
		t.Errorf("schema files (-want +got):\n%s", diff)
	}
}

func TestCompiles(t *testing.T) {
	compile(t)
}

// TestKindsExistAndClosed checks every kind of D3 that this package owns is a
// closed struct: an unknown key is rejected by the schema itself.
func TestKindsExistAndClosed(t *testing.T) {
	v := compile(t)
	defs := definitions(t, v)
	for _, def := range kinds {
		d, ok := defs[def]
		if !ok {
			t.Errorf("%s: missing", def)
			continue
		}
		if !isStruct(d) || !d.IsClosed() {
			t.Errorf("%s: want a closed struct", def)
		}
		// trust.json is a map from folder paths, so any path is allowed as
		// a key; "$x" keys are not.
		probe := "zzNotAField"
		if def == "#Trust" {
			probe = "$notAField"
		}
		if d.Allows(cue.Str(probe)) {
			t.Errorf("%s: allows unknown field %q", def, probe)
		}
	}
	// Every struct definition of ours is closed, so typos are caught at
	// every level, not just the top.
	for name, d := range ownDefinitions(t, v) {
		if isStruct(d) && d.Allows(cue.Str("$zzNotAField")) {
			t.Errorf("%s: struct is open", name)
		}
	}
}

// TestDocComments checks every definition and every field of every struct
// definition carries a doc comment.
func TestDocComments(t *testing.T) {
	v := compile(t)
	for name, d := range ownDefinitions(t, v) {
		if len(d.Doc()) == 0 {
			t.Errorf("%s: no doc comment", name)
		}
		if !isStruct(d) {
			continue
		}
		for _, f := range fields(t, d) {
			if docText(f.value) == "" {
				t.Errorf("%s.%s: no doc comment", name, f.name)
			}
		}
	}
}

func docText(v cue.Value) string {
	var b strings.Builder
	for _, c := range v.Doc() {
		b.WriteString(c.Text())
	}
	return strings.TrimSpace(b.String())
}

// TestNoLossyConstructs scans the sources for constructs the JSON Schema
// generator mishandles (if comprehensions, open "..." structs) and for
// regexp lookarounds, which Go's regexp does not support.
func TestNoLossyConstructs(t *testing.T) {
	lookaround := regexp.MustCompile(`\(\?<?[=!]`)
	for _, name := range ownFiles() {
		src, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ast.Walk(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Comprehension:
				t.Errorf("%s: comprehension at %s", name, n.Pos())
			case *ast.StructLit:
				for _, e := range n.Elts {
					if _, ok := e.(*ast.Ellipsis); ok {
						t.Errorf("%s: open struct at %s", name, e.Pos())
					}
				}
			case *ast.BasicLit:
				if lookaround.MatchString(n.Value) {
					t.Errorf("%s: regexp lookaround at %s", name, n.Pos())
				}
			}
			return true
		}, nil)
	}
}

func TestValidSamples(t *testing.T) {
	v := compile(t)
	files, _ := filepath.Glob("testdata/valid/*.json")
	seen := map[string]bool{}
	for _, file := range files {
		def := kindOf(t, file)
		seen[def] = true
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, v, def, file, data); err != nil {
			t.Errorf("%s: want valid against %s, got:\n%s", file, def, errors.Details(err, nil))
		}
	}
	for prefix, def := range kinds {
		if !seen[def] {
			t.Errorf("no valid sample for %s (testdata/valid/%s.*.json)", def, prefix)
		}
	}
}

// invalidPaths gives, for every invalid sample, the data path that must be
// among the error paths, so each sample fails for the reason it was written.
var invalidPaths = map[string]string{
	"settings.enum-file-io":               "personalExtensions.fileIo",
	"settings.enum-thinking-level":        "defaultThinkingLevel",
	"settings.enum-project-trust":         "defaultProjectTrust",
	"settings.enum-talk-deliver":          "talk.deliver",
	"settings.type-bool":                  "hideThinkingBlock",
	"settings.type-tool-rule":             "personalExtensions.disabledTools.0",
	"settings.type-rule-tools-string":     "personalExtensions.enabledTools.0",
	"settings.type-list-field":            "personalExtensions.disabledTools",
	"settings.type-npm-command":           "npmCommand",
	"settings.range-editor-padding":       "editorPaddingX",
	"settings.range-autocomplete":         "autocompleteMaxVisible",
	"settings.range-output-pad":           "outputPad",
	"settings.range-idle-timeout":         "httpIdleTimeoutMs",
	"settings.range-session-name-length":  "sessionName.maxLength",
	"settings.required-vision-model":      "visionConfig.model",
	"settings.required-package-source":    "packages.0.source",
	"settings.required-file-io-by-model":  "personalExtensions.fileIoByModel.0.fileIo",
	"settings.unknown-owned-key":          "personalExtensions.fileIO",
	"settings.unknown-nested-key":         "compaction.enable",
	"sandbox.enum-fs-mode":                "fs.mode",
	"sandbox.enum-network-mode":           "network.mode",
	"sandbox.enum-rule-action":            "approvalRules.0.action",
	"sandbox.type-writable-paths":         "fs.writablePaths",
	"sandbox.empty-rule-pattern":          "approvalRules.0.pattern",
	"sandbox.required-rule-pattern":       "approvalRules.0.pattern",
	"sandbox.legacy-flat-mode":            "mode",
	"sandbox.foreign-dialect":             "filesystem",
	"legacy-bwrap.enum-mode":              "mode",
	"lsp.type-enabled-item":               "enabled.1",
	"lsp.type-server-bin":                 "servers.x.bin",
	"lsp.type-servers-array":              "servers",
	"lsp.range-initialize-timeout":        "initializeTimeoutMs",
	"lsp.range-zero-duration":             "watch.debounceMs",
	"lsp.range-max-batch":                 "watch.maxBatch",
	"lsp.range-max-open-documents":        "maxOpenDocuments",
	"lsp.enum-server-kind":                "servers.x.kind",
	"lsp.empty-root-marker":               "servers.x.rootMarkers.0",
	"lsp.empty-env-command":               "servers.x.env.TOKEN",
	"lsp.unknown-server-key":              "servers.x.command",
	"models.required-model-id":            "providers.p.models.0.id",
	"models.enum-input":                   "providers.p.models.0.input.0",
	"models.range-cost":                   "providers.p.models.0.cost.input",
	"models.range-context-window":         "providers.p.modelOverrides.m.contextWindow",
	"models.empty-api-key":                "providers.p.apiKey",
	"models.type-thinking-map":            "providers.p.models.0.thinkingLevelMap.high",
	"spawn-agent.enum-max-level":          "thinkingLevel",
	"proxy.type-proxy":                    "proxy",
	"openai-cost.required-base-url":       "baseUrl",
	"web-search.type-key":                 "search1apiApiKey",
	"trust.type-decision":                 `"/home/me/work"`,
	"agent.required-description":          "description",
	"agent.enum-thinking-max":             "thinking",
	"agent.type-tools":                    "tools",
	"agent.unknown-sandbox-rules":         "sandbox.approvalRules",
	"prompt.type-argument-hint":           `"argument-hint"`,
	"skill.required-description":          "description",
	"skill.type-disable-model-invocation": `"disable-model-invocation"`,
	"mcp.enum-exposure":                   "mcpServers.x.exposure",
	"mcp.type-args":                       "mcpServers.x.args",
	"mcp.range-timeout":                   "mcpServers.x.timeout",
	"mcp.required-auth-provider":          "mcpServers.x.auth.provider",
}

func TestInvalidSamples(t *testing.T) {
	v := compile(t)
	files, _ := filepath.Glob("testdata/invalid/*.json")
	var names []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		names = append(names, name)
		want, ok := invalidPaths[name]
		if !ok {
			t.Errorf("%s: no expected error path in invalidPaths", file)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		err = validate(t, v, kindOf(t, file), file, data)
		if err == nil {
			t.Errorf("%s: want an error at %s, got none", file, want)
			continue
		}
		var paths []string
		for _, e := range errors.Errors(err) {
			p := e.Path()
			if len(p) > 0 && strings.HasPrefix(p[0], "#") {
				p = p[1:] // strip the definition label
			}
			paths = append(paths, strings.Join(p, "."))
		}
		if !slices.Contains(paths, want) {
			t.Errorf("%s: want an error at %s, got errors at %q:\n%s", file, want, paths, errors.Details(err, nil))
		}
	}
	for name := range invalidPaths {
		if !slices.Contains(names, name) {
			t.Errorf("invalidPaths lists %s but testdata/invalid/%s.json is missing", name, name)
		}
	}
}

// TestDefaults pins the defaults of the reference, read the way the loader
// reads them: the default of an optional field that is absent.
func TestDefaults(t *testing.T) {
	v := compile(t)
	tests := []struct {
		path string
		want any
	}{
		{"#Settings.theme", "dark"},
		{"#Settings.hideThinkingBlock", false},
		{"#Settings.defaultProjectTrust", "ask"},
		{"#Settings.enableInstallTelemetry", true},
		{"#Settings.doubleEscapeAction", "tree"},
		{"#Settings.treeFilterMode", "default"},
		{"#Settings.editorPaddingX", 0},
		{"#Settings.outputPad", 1},
		{"#Settings.autocompleteMaxVisible", 5},
		{"#Settings.tuiMode", "regular"},
		{"#Settings.fullscreenExitOutput", "transcript"},
		{"#Settings.fullscreenScrollbar", "auto"},
		{"#Settings.steeringMode", "one-at-a-time"},
		{"#Settings.followUpMode", "one-at-a-time"},
		{"#Settings.transport", "auto"},
		{"#Settings.httpIdleTimeoutMs", 300000},
		{"#Settings.websocketConnectTimeoutMs", 15000},
		{"#Settings.exposeSessionEnvironment", true},
		{"#Settings.enableSkillCommands", true},
		{"#SettingsWarnings.anthropicExtraUsage", true},
		{"#Compaction.enabled", true},
		{"#Compaction.reserveTokens", 16384},
		{"#Compaction.keepRecentTokens", 20000},
		{"#BranchSummary.reserveTokens", 16384},
		{"#BranchSummary.skipPrompt", false},
		{"#Retry.enabled", true},
		{"#Retry.maxRetries", 3},
		{"#Retry.baseDelayMs", 2000},
		{"#RetryProvider.maxRetries", 0},
		{"#RetryProvider.maxRetryDelayMs", 60000},
		{"#Terminal.showImages", true},
		{"#Terminal.imageWidthCells", 60},
		{"#Images.autoResize", true},
		{"#Markdown.codeBlockIndent", "  "},
		{"#Markdown.mermaid", "streaming"},
		{"#PackageFilter.autoload", true},
		{"#PersonalExtensions.fileIo", "claude-code"},
		{"#SessionName.maxLength", 30},
		{"#Talk.deliver", "queue"},
		{"#SandboxFS.mode", "workspace-write"},
		{"#SandboxFS.writablePaths", []any{".", "/tmp"}},
		{"#SandboxNetwork.mode", "block"},
		{"#LegacyBwrap.mode", "workspace-write"},
		{"#LSP.maxOpenDocuments", 32},
		{"#LSP.diagnosticsDebounceMs", 150},
		{"#LSP.diagnosticsDocumentWaitTimeoutMs", 5000},
		{"#LSP.diagnosticsSilentWaitTimeoutMs", 1500},
		{"#LSP.diagnosticsFullWaitTimeoutMs", 10000},
		{"#LSP.diagnosticsRequestTimeoutMs", 3000},
		{"#LSP.initializeTimeoutMs", 45000},
		{"#LSPWatch.enabled", true},
		{"#LSPWatch.debounceMs", 300},
		{"#LSPWatch.maxBatch", 500},
		{"#LSPServer.kind", "language"},
		{"#Model.reasoning", false},
		{"#Model.input", []any{"text"}},
		{"#Model.contextWindow", 128000},
		{"#Model.maxTokens", 16384},
		{"#ModelCost.input", 0},
		{"#OpenAICost.id", "openai-cost"},
		{"#OpenAICost.name", "OpenAI Cost"},
		{"#OpenAICost.apiKeyEnv", "OPENAI_COST_API_KEY"},
		{"#OpenAICostModel.maxTokens", 8192},
		{"#OpenAICostModel.contextWindow", 128000},
		{"#SkillFrontmatter.disable-model-invocation", false},
	}
	for _, tt := range tests {
		def, field, _ := strings.Cut(tt.path, ".")
		f := v.LookupPath(cue.MakePath(cue.Def(def), cue.Str(field).Optional()))
		if !f.Exists() {
			t.Errorf("%s: no such field", tt.path)
			continue
		}
		d, ok := f.Default()
		if !ok {
			t.Errorf("%s: no default", tt.path)
			continue
		}
		got, err := d.MarshalJSON()
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		want, _ := json.Marshal(tt.want)
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s default (-want +got):\n%s", tt.path, diff)
		}
	}
}

// walkFields calls fn for every field of every struct definition.
func walkFields(t testing.TB, defs map[string]cue.Value, fn func(def string, f field)) {
	t.Helper()
	var names []string
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if d := defs[name]; isStruct(d) {
			for _, f := range fields(t, d) {
				fn(name, f)
			}
		}
	}
}

// TestMergeAttributes pins every @merge attribute: the rule is from the
// allowed set, and exactly the fields D4 names carry one.
func TestMergeAttributes(t *testing.T) {
	v := compile(t)
	allowed := []string{"replace", "deep", "prepend", "append", "union", "entries", "global", "override"}
	got := map[string]string{}
	walkFields(t, definitions(t, v), func(def string, f field) {
		a := f.value.Attribute("merge")
		if a.Err() != nil {
			return
		}
		rule := a.Contents()
		if !slices.Contains(allowed, rule) {
			t.Errorf("%s.%s: unknown merge rule %q", def, f.name, rule)
		}
		got[def+"."+f.name] = rule
	})
	want := map[string]string{
		"#Settings.defaultProjectTrust":         "global",
		"#Settings.httpProxy":                   "global",
		"#Settings.packages":                    "prepend",
		"#Settings.extensions":                  "prepend",
		"#Settings.skills":                      "prepend",
		"#Settings.prompts":                     "prepend",
		"#Settings.themes":                      "prepend",
		"#PersonalExtensions.fileIoByModel":     "prepend",
		"#PersonalExtensions.disabledTools":     "append",
		"#PersonalExtensions.enabledTools":      "append",
		"#PersonalExtensions.codemodeOnlyTools": "append",
		"#Sandbox.approvalRules":                "append",
		"#SandboxFS.extraWritablePaths":         "append",
		"#SandboxNetwork.allowUnixSockets":      "replace",
		"#LSP.servers":                          "entries",
		"#LSPWatch.ignore":                      "union",
		"#MCP.mcpServers":                       "override",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("@merge attributes (-want +got):\n%s", diff)
	}
}

// TestOwnedSections pins which structs carry @pigo(owned) (D15): every
// section only pigo and the seed read, and none of the shared ones.
func TestOwnedSections(t *testing.T) {
	v := compile(t)
	var got []string
	for name, d := range ownDefinitions(t, v) {
		for _, a := range d.Attributes(cue.DeclAttr) {
			if a.Name() == "pigo" {
				if a.Contents() != "owned" {
					t.Errorf("%s: unknown @pigo(%s)", name, a.Contents())
				}
				got = append(got, name)
			}
		}
	}
	sort.Strings(got)
	want := []string{
		"#ApprovalRule", "#EnvCommand", "#FileIoByModel", "#LSP", "#LSPServer", "#LSPWatch",
		"#LegacyBwrap", "#MCPSandbox", "#OpenAICost", "#OpenAICostModel", "#PersonalExtensions", "#Proxy",
		"#Sandbox", "#SandboxFS", "#SandboxNetwork", "#SandboxPolicy", "#SessionName",
		"#SpawnAgent", "#Talk", "#ToolRuleObject", "#Trust", "#VisionConfig", "#WebSearch",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("@pigo(owned) structs (-want +got):\n%s", diff)
	}
}

// TestDeprecated pins the legacy keys pi migrates on load.
func TestDeprecated(t *testing.T) {
	v := compile(t)
	defs := ownDefinitions(t, v)
	got := map[string]string{}
	walkFields(t, defs, func(def string, f field) {
		if a := f.value.Attribute("deprecated"); a.Err() == nil {
			s, _ := a.String(0)
			got[def+"."+f.name] = s
		}
	})
	for name, d := range defs {
		for _, a := range d.Attributes(cue.DeclAttr) {
			if a.Name() == "deprecated" {
				s, _ := a.String(0)
				got[name] = s
			}
		}
	}
	want := map[string]string{
		"#Settings.queueMode":  "use steeringMode",
		"#Settings.websockets": "use transport",
		"#Retry.maxDelayMs":    "use retry.provider.maxRetryDelayMs",
		"#LegacySkills":        "use enableSkillCommands and a skills list",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("@deprecated (-want +got):\n%s", diff)
	}
}

// TestSandboxPolicyInStep checks #Sandbox repeats #SandboxPolicy exactly
// (same fields, same constraints) plus its own two fields.
func TestSandboxPolicyInStep(t *testing.T) {
	v := compile(t)
	defs := definitions(t, v)
	sandbox := map[string]cue.Value{}
	for _, f := range fields(t, defs["#Sandbox"]) {
		sandbox[f.name] = f.value
	}
	for _, f := range fields(t, defs["#SandboxPolicy"]) {
		s, ok := sandbox[f.name]
		if !ok {
			t.Errorf("#Sandbox lacks %s of #SandboxPolicy", f.name)
			continue
		}
		if s.Subsume(f.value) != nil || f.value.Subsume(s) != nil {
			t.Errorf("#Sandbox.%s differs from #SandboxPolicy.%s", f.name, f.name)
		}
		delete(sandbox, f.name)
	}
	var rest []string
	for name := range sandbox {
		rest = append(rest, name)
	}
	sort.Strings(rest)
	if diff := cmp.Diff([]string{"$schema", "approvalRules"}, rest); diff != "" {
		t.Errorf("#Sandbox fields beyond #SandboxPolicy (-want +got):\n%s", diff)
	}
}

// TestJSONSchema generates the editor schema of every kind and checks it
// kept what matters: closed objects with every field, bounds on numbers,
// and nothing collapsed into "accept anything".
func TestJSONSchema(t *testing.T) {
	v := compile(t)
	defs := definitions(t, v)
	for _, def := range kinds {
		expr, err := jsonschema.Generate(defs[def], nil)
		if err != nil {
			t.Errorf("%s: %v", def, err)
			continue
		}
		raw, err := json.Marshal(v.Context().BuildExpr(expr))
		if err != nil {
			t.Errorf("%s: %v", def, err)
			continue
		}
		var js map[string]any
		if err := json.Unmarshal(raw, &js); err != nil {
			t.Fatal(err)
		}
		if js["type"] != "object" || js["additionalProperties"] != false {
			t.Errorf("%s: root is not a closed object: type=%v additionalProperties=%v", def, js["type"], js["additionalProperties"])
		}
		props, _ := js["properties"].(map[string]any)
		var gotNames, wantNames []string
		for name := range props {
			gotNames = append(gotNames, name)
		}
		for _, f := range fields(t, defs[def]) {
			wantNames = append(wantNames, f.name)
		}
		sort.Strings(gotNames)
		sort.Strings(wantNames)
		if diff := cmp.Diff(wantNames, gotNames); diff != "" {
			t.Errorf("%s: JSON Schema properties (-want +got):\n%s", def, diff)
		}
		s := string(raw)
		if strings.Contains(s, `"const":{}`) || strings.Contains(s, `:true,"`) && strings.Contains(s, `"properties":true`) {
			t.Errorf("%s: JSON Schema has a lossy construct:\n%s", def, s)
		}
		if def == "#Settings" {
			pad, _ := json.Marshal(props["editorPaddingX"])
			if !strings.Contains(string(pad), `"maximum":3`) {
				t.Errorf("#Settings: editorPaddingX lost its bounds in JSON Schema: %s", pad)
			}
		}
		if def == "#Trust" {
			if _, ok := js["patternProperties"]; !ok {
				t.Errorf("#Trust: JSON Schema lost the folder pattern: %s", s)
			}
		}
	}
}

// BenchmarkCompile measures building the whole schema once, as a process
// does at start.
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		compile(b)
	}
}

// BenchmarkValidateSettings measures validating one full settings file
// against an already compiled schema.
func BenchmarkValidateSettings(b *testing.B) {
	v := compile(b)
	data, err := os.ReadFile("testdata/valid/settings.full.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := validate(b, v, "#Settings", "settings.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
