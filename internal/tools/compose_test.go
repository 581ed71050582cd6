package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// TestComposedInOneList: the toolsets are bound by the one list in All, never by init side
// effects. No package under internal/tools has an init function, and every package with a
// Register function is in the list (a toolset left out would leave its declarations
// without implementations only where TestEveryShippedDeclarationIsImplemented looks).
func TestComposedInOneList(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range toolsets {
		name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
		listed[strings.TrimSuffix(filepath.Base(name), ".Register")] = true
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var registers []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, e.Name(), func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for fn, f := range p.Files {
				for _, d := range f.Decls {
					fd, ok := d.(*ast.FuncDecl)
					if !ok || fd.Recv != nil {
						continue
					}
					switch fd.Name.Name {
					case "init":
						t.Errorf("%s: an init function; toolsets are composed in tools.All's list", fset.Position(fd.Pos()))
					case "Register":
						registers = append(registers, e.Name())
						if !listed[p.Name] {
							t.Errorf("%s: package %s has a Register function but is not in the list", fn, p.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(registers)
	if len(registers) != len(toolsets) {
		t.Errorf("%d packages with Register (%v), %d in the list", len(registers), registers, len(toolsets))
	}
}
