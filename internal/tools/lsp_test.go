package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/lsp"
	lsptools "github.com/pigo-agent/pigo/internal/tools/lsp"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func TestDiagnosticsBlock(t *testing.T) {
	d := func(sev, line, col int, msg string) toolkit.LSPDiagnostic {
		return toolkit.LSPDiagnostic{Line: line, Character: col, Severity: sev, Message: msg}
	}
	if got := toolkit.DiagnosticsBlock("/w/a.go", []toolkit.LSPDiagnostic{d(3, 0, 0, "info"), d(4, 1, 1, "hint")}); got != "" {
		t.Errorf("info/hint only: %q", got)
	}
	got := toolkit.DiagnosticsBlock("/w/a.go", []toolkit.LSPDiagnostic{d(2, 0, 4, "unused"), d(1, 2, 0, "undefined: x"), d(0, 5, 2, "no severity")})
	if want := "<diagnostics file=\"/w/a.go\">\nERROR [3:1] undefined: x\nERROR [6:3] no severity\nWARN [1:5] unused\n</diagnostics>"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	var many []toolkit.LSPDiagnostic
	for i := 0; i < 6; i++ {
		many = append(many, d(1, i, 0, "e"))
	}
	many = append(many, d(2, 9, 0, "w"), d(2, 9, 1, "w"))
	got = toolkit.DiagnosticsBlock("/f", many)
	if !strings.HasSuffix(got, "ERROR [5:1] e\n... and 1 error, 2 warnings\n</diagnostics>") || strings.Count(got, "\nERROR") != 5 {
		t.Errorf("cap: %q", got)
	}
	got = toolkit.DiagnosticsBlock("/f", append(many[:5:5], d(2, 9, 0, "w")))
	if !strings.HasSuffix(got, "\n... and 1 warning\n</diagnostics>") {
		t.Errorf("warnings only hidden: %q", got)
	}
	if toolkit.AppendDiagnostics("ok", "") != "ok" || toolkit.AppendDiagnostics("ok", "B") != "ok\n\nLSP diagnostics detected in this file\nB" {
		t.Error("AppendDiagnostics")
	}
}

func TestSymbolCandidates(t *testing.T) {
	text := "a\n\tfoo := foo2(foo) // föo foo\r\n"
	got, err := lsptools.SymbolCandidates(text, 1, "foo", nil)
	if err != nil || len(got) != 3 || got[0].Char != 1 || got[1].Char != 13 || got[2].Char != 25 || got[2].ByteCol != 26 {
		t.Fatalf("candidates %+v %v", got, err)
	}
	c := 15
	if got, err := lsptools.SymbolCandidates(text, 1, "foo", &c); err != nil || len(got) != 1 || got[0].Char != 13 {
		t.Errorf("character: %+v %v", got, err)
	}
	c = 8
	if _, err := lsptools.SymbolCandidates(text, 1, "foo", &c); err == nil || err.Error() != "character 9 on line 2 does not point at symbol 'foo' (points at 'foo2')" {
		t.Errorf("wrong character: %v", err)
	}
	c = 5
	if _, err := lsptools.SymbolCandidates(text, 1, "foo", &c); err == nil || err.Error() != "character 6 on line 2 does not point at symbol 'foo'" {
		t.Errorf("space: %v", err)
	}
	if got, _ := lsptools.SymbolCandidates(text, 7, "foo", nil); got != nil {
		t.Errorf("past the end: %+v", got)
	}
}

func TestFormatHover(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain"`:                                 "plain",
		`{"kind":"markdown","value":"**b**"}`:     "**b**",
		`{"language":"go","value":"func F()"}`:    "```go\nfunc F()\n```",
		`["a",{"language":"go","value":"var x"}]`: "a\n\n```go\nvar x\n```",
	} {
		if got := lsptools.FormatHover(json.RawMessage(raw)); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

func goplsPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("PIGO_GOPLS"), "/root/go/bin/gopls", filepath.Join(os.Getenv("HOME"), "go/bin/gopls")} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	t.Skip("gopls not found (install it: go install golang.org/x/tools/gopls@v0.23.0; or set PIGO_GOPLS)")
	return ""
}

// goplsEnv is a claude-code session on a Go module with gopls configured.
func goplsEnv(t *testing.T, fileIO string) (*ftEnv, *toolkit.LSP) {
	t.Helper()
	bin := goplsPath(t)
	lspJSON := `{"servers": {"gopls": {"bin": "` + bin + `", "include": ["**/*.go"], "rootMarkers": ["go.mod"]}}}`
	e := newFileEnvLSP(t, fileIO, lspJSON)
	e.write("go.mod", "module example.com/m\n\ngo 1.22\n")
	cfg, err := lsp.ParseConfig([]byte(lspJSON))
	if err != nil {
		t.Fatal(err)
	}
	env := lsp.OSEnv()
	env["GOFLAGS"] = "-mod=mod"
	env["GOPROXY"] = "off"
	l := toolkit.NewLSP(cfg, e.dir, env)
	t.Cleanup(l.Close)
	e.s.LSP = l
	return e, l
}

func TestDiagnosticsAfterReadAndEditWithGopls(t *testing.T) {
	e, _ := goplsEnv(t, "claude-code")
	p := e.write("main.go", "package main\n\nfunc main() {\n\tvar unused int\n\tundefinedCall()\n}\n")
	r := e.call("Read", map[string]any{"file_path": p})
	text := r.Text()
	head := "1: package main\n2: \n3: func main() {\n4: \tvar unused int\n5: \tundefinedCall()\n6: }\n7: \n\nLSP diagnostics detected in this file\n<diagnostics file=\"" + p + "\">\n"
	if !strings.HasPrefix(text, head) || !strings.Contains(text, "ERROR [5:2] undefined: undefinedCall") ||
		!strings.Contains(text, "ERROR [4:6] declared and not used: unused") || !strings.HasSuffix(text, "\n</diagnostics>") {
		t.Fatalf("read with diagnostics:\n%s", text)
	}
	r = e.call("Edit", map[string]any{"file_path": p, "old_string": "\tvar unused int\n\tundefinedCall()\n", "new_string": "\tprintln(1)\n"})
	if r.IsError || r.Text() != "The file "+p+" has been updated successfully." {
		t.Fatalf("clean edit: %q", r.Text())
	}
	r = e.call("Edit", map[string]any{"file_path": p, "old_string": "println(1)", "new_string": "println(missing)"})
	if want := "The file " + p + " has been updated successfully.\n\nLSP diagnostics detected in this file\n<diagnostics file=\"" + p + "\">\nERROR [4:10] undefined: missing\n</diagnostics>"; r.Text() != want {
		t.Fatalf("edit with error:\n got %q\nwant %q", r.Text(), want)
	}
}

func TestLSPToolsWithGopls(t *testing.T) {
	e, _ := goplsEnv(t, "claude-code")
	src := "package main\n\ntype A struct{ Name string }\ntype B struct{ Name string }\n\n// Greet says hello.\nfunc Greet(n string) string { return \"hi \" + n }\n\nfunc main() {\n\ta, b := A{}, B{}\n\ta.Name = b.Name\n\tprintln(Greet(a.Name))\n}\n"
	p := e.write("main.go", src)
	other := e.write("other.go", "package main\n\nfunc other() string { return Greet(\"x\") }\n")
	ctx := context.Background()
	_ = ctx
	r := e.call("lsp-find-definition", map[string]any{"file_path": "main.go", "line": 12, "symbol": "Greet"})
	if want := "Found 1 definition(s):\n- " + p + ":7:6\n  func Greet(n string) string { return \"hi \" + n }"; r.IsError || r.Text() != want {
		t.Errorf("definition:\n got %q\nwant %q", r.Text(), want)
	}
	var st lsptools.LocationsValue
	if json.Unmarshal(r.Structured, &st); st.ServerID != "gopls" || len(st.Locations) != 1 || st.Locations[0] != (lsptools.LocationPayload{Path: p, Line: 7, Character: 6}) || st.Text != r.Text() {
		t.Errorf("definition structured %s", r.Structured)
	}
	r = e.call("lsp-find-reference", map[string]any{"file_path": p, "line": 7, "symbol": "Greet"})
	want := "Found 3 reference(s) in 2 file(s):\n### " + p + " (2)\n- 7:6: func Greet(n string) string { return \"hi \" + n }\n- 12:10: \tprintln(Greet(a.Name))\n### " + other + " (1)\n- 3:30: func other() string { return Greet(\"x\") }"
	if r.IsError || r.Text() != want {
		t.Errorf("references:\n got %q\nwant %q", r.Text(), want)
	}
	r = e.call("lsp-inspect", map[string]any{"file_path": p, "line": 7, "symbol": "Greet"})
	if r.IsError || !strings.Contains(r.Text(), "func Greet(n string) string") || !strings.Contains(r.Text(), "Greet says hello.") {
		t.Errorf("hover: %q", r.Text())
	}
	// Two different fields named Name on line 11: ambiguous without character.
	r = e.call("lsp-find-definition", map[string]any{"file_path": p, "line": 11, "symbol": "Name"})
	if want := "Ambiguous symbol on line 11 of " + p + ": several distinct symbols share the name \"Name\". Retry with 'character' (1-based) to pick one:\n- line 11, column 4\n- line 11, column 13"; !r.IsError || r.Text() != want {
		t.Errorf("ambiguity:\n got %q\nwant %q", r.Text(), want)
	}
	r = e.call("lsp-find-definition", map[string]any{"file_path": p, "line": 11, "symbol": "Name", "character": 13})
	if !strings.HasPrefix(r.Text(), "Found 1 definition(s):\n- "+p+":4:16") {
		t.Errorf("character picks B.Name: %q", r.Text())
	}
	e.fail("lsp-find-definition", map[string]any{"file_path": p, "line": 11, "symbol": "Nope"}, "Symbol \"Nope\" not found on line 11 of "+p+". Read the file again and locate the symbol.")
	e.fail("lsp-inspect", map[string]any{"file_path": "gone.go", "line": 1, "symbol": "x"}, "File does not exist: "+filepath.Join(e.dir, "gone.go"))

	// Rename across both files; the result counts as a read.
	r = e.call("lsp-rename", map[string]any{"file_path": p, "line": 12, "symbol": "Greet", "new_name": "Welcome"})
	if r.IsError || r.Text() != "Renamed 'Greet' -> 'Welcome' across 2 file(s)." {
		t.Fatalf("rename: %q", r.Text())
	}
	if got := e.read("other.go"); got != "package main\n\nfunc other() string { return Welcome(\"x\") }\n" {
		t.Errorf("other.go: %q", got)
	}
	if !strings.Contains(string(r.Details), `"`+other+`"`) || !strings.Contains(string(r.Details), `"`+p+`"`) {
		t.Errorf("rename reads %s", r.Details)
	}
	r = e.call("Edit", map[string]any{"file_path": other, "old_string": "\"x\"", "new_string": "\"y\""})
	if r.IsError {
		t.Errorf("edit after rename needs no read: %q", r.Text())
	}
	r = e.call("lsp-rename", map[string]any{"file_path": p, "line": 11, "symbol": "Name", "new_name": "Label"})
	if !r.IsError || !strings.HasPrefix(r.Text(), "Ambiguous rename target on line 11 of "+p+": several distinct symbols share the name \"Name\". Retry with 'character' (1-based) to pick one:\n- line 11, column 4 (rename target: Name)\n- line 11, column 13 (rename target: Name)") {
		t.Errorf("rename ambiguity: %q", r.Text())
	}
}
