package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pigo tool run starts the language servers lsp.json configures: the LSP
// tools answer, and a Read carries the file's diagnostics.
func TestToolRunLSPWithGopls(t *testing.T) {
	gopls := "/root/go/bin/gopls"
	if p := os.Getenv("PIGO_GOPLS"); p != "" {
		gopls = p
	}
	if _, err := os.Stat(gopls); err != nil {
		t.Skip("gopls not installed at " + gopls + " (go install golang.org/x/tools/gopls@v0.23.0, or set PIGO_GOPLS)")
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, agent := filepath.Join(root, "ws"), filepath.Join(root, "agent")
	files := map[string]string{
		filepath.Join(agent, "lsp.json"): `{"servers": {"gopls": {"bin": "` + gopls + `", "include": ["**/*.go"], "rootMarkers": ["go.mod"]}}}`,
		filepath.Join(ws, "go.mod"):      "module example.com/m\n\ngo 1.22\n",
		filepath.Join(ws, "main.go"):     "package main\n\nfunc greet() {}\n\nfunc main() {\n\tgreet()\n\tmissing()\n}\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	run := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		c := &CLI{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
		code := c.Main(append([]string{"--agent-dir", agent, "-C", ws, "tool", "run"}, args...))
		return out.String() + errb.String(), code
	}
	out, code := run("lsp-find-definition", "--args", `{"file_path":"main.go","line":6,"symbol":"greet"}`)
	if code != 0 || out != "Found 1 definition(s):\n- "+filepath.Join(ws, "main.go")+":3:6\n  func greet() {}\n" {
		t.Errorf("definition (exit %d):\n%s", code, out)
	}
	out, code = run("Read", "--args", `{"file_path":"main.go","offset":5,"limit":1}`)
	if want := "5: func main() {\n\nLSP diagnostics detected in this file\n<diagnostics file=\"" + filepath.Join(ws, "main.go") + "\">\nERROR [7:2] undefined: missing\n</diagnostics>\n"; code != 0 || out != want {
		t.Errorf("read (exit %d):\n%q\nwant\n%q", code, out, want)
	}
}
