package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoEagerPackageState: every pigo process initialises every package linked into it, whatever
// the command, so pigo's own packages compile no regular expression at package level: each is
// compiled on first use (sync.OnceValue). Each cost 0.01–0.12 ms of the start of pigo -p and
// pigo tools (issue 25 item 4: package init under 3 ms); the test names the file and line of
// one that comes back. Only the packages linked into pigo are looked at (not their tests).
func TestNoEagerPackageState(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Dir}}{{range .GoFiles}} {{.}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "github.com/pigo-agent/pigo") {
			continue
		}
		for _, name := range f[2:] {
			files = append(files, filepath.Join(f[1], name))
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d files of pigo's packages listed:\n%s", len(files), out)
	}
	fset := token.NewFileSet()
	var bad []string
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if why := eager(v); why != "" {
						rel, _ := filepath.Rel(root, path)
						bad = append(bad, rel+":"+strconv.Itoa(fset.Position(v.Pos()).Line)+": "+why)
					}
				}
			}
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// eager says what costly thing a package-level value computes at init, "" for none.
// Function literals are not entered: their bodies run when called.
func eager(e ast.Expr) string {
	why := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
					why = "regexp compiled at package init (compile it on first use: sync.OnceValue)"
					return false
				}
			}
		}
		return true
	})
	return why
}

// TestInitAllocatesNothing: the packages listed build nothing on the heap at start-up, which
// every pigo process pays for whatever the command (D25.44: the session package's thinking
// levels are static data and its one regexp a byte loop; keymap's tables are switches; D25.49:
// cli's command table, once registered by an init function per command, is static data, and
// package-level sync.OnceValue calls are lazy.Value literals).
// GODEBUG=inittrace=1 makes the runtime report each package's init with its allocations; a
// package left with no init work at all has no line.
func TestInitAllocatesNothing(t *testing.T) {
	cmd := exec.Command(pigoBinary(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pigo --version: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "\ninit "); n < 100 {
		t.Fatalf("only %d init lines in:\n%s", n, out)
	}
	for _, pkg := range []string{
		"github.com/pigo-agent/pigo/internal/session",
		"github.com/pigo-agent/pigo/internal/keymap",
		"github.com/pigo-agent/pigo/internal/cli",
		// D25.49: their sync.OnceValue calls are lazy.Value literals, auth's flows a switch.
		"github.com/pigo-agent/pigo/internal/auth",
		"github.com/pigo-agent/pigo/internal/editor",
		"github.com/pigo-agent/pigo/internal/frontmatter",
		"github.com/pigo-agent/pigo/internal/jsonc",
		"github.com/pigo-agent/pigo/internal/jsonedit",
		"github.com/pigo-agent/pigo/internal/naming",
		"github.com/pigo-agent/pigo/internal/pkgs",
		"github.com/pigo-agent/pigo/internal/talk",
		"github.com/pigo-agent/pigo/internal/theme",
		"github.com/pigo-agent/pigo/internal/tools",
		"github.com/pigo-agent/pigo/internal/tools/ext",
		"github.com/pigo-agent/pigo/internal/tools/lsp",
	} {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "init "+pkg+" @") && !strings.HasSuffix(l, " 0 bytes, 0 allocs") {
				t.Errorf("%s allocates at start-up: %s", pkg, l)
			}
		}
	}
}
