package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/diag"
)

// withinBounds runs fn (under the package's memory limit) and fails, instead of hanging, when
// it does not return in a generous time. It asserts no speed.
func withinBounds(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("no result within 90s: a hang or a super-linear path")
	}
}

// bomb is issue 11's 381-byte agent file: nested YAML aliases that expand to 9^9 values.
func bomb() string {
	s := "---\nname: bomb\ndescription: x\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for _, c := range "bcdefghi" {
		s += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = string(c)
	}
	return s + "---\nbody\n"
}

// TestHostileProject: an untrusted project whose files are a FIFO, a device, links to a secret
// outside the project, and the alias bomb. check reads none of the first three (each says why),
// bounds the bomb, never blocks, and never prints the secret.
func TestHostileProject(t *testing.T) {
	root := writeTree(t, map[string]string{
		"secret/id_rsa":               "{\"-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t\": 1,,}\n",
		"secret/skills/leak/SKILL.md": "---\nname: leak\ndescription: s3cr3t\n---\n",
		"proj/.pi/agents/bomb.md":     bomb(),
	})
	pi := filepath.Join(root, "proj", ".pi")
	if err := syscall.Mkfifo(filepath.Join(pi, "settings.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"sandbox.json":        "/dev/zero",
		"lsp.json":            filepath.Join(root, "secret", "id_rsa"),
		"agents/key.md":       filepath.Join(root, "secret", "id_rsa"),
		"skills":              filepath.Join(root, "secret", "skills"),
		"extensions/tty.json": "/dev/tty",
	} {
		p := filepath.Join(pi, link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	no := false
	var list diag.List
	withinBounds(t, func() { list = loadTree(t, root, &no).Check() })
	var out strings.Builder
	diag.WriteText(&out, list, diag.Style{})
	if strings.Contains(out.String(), "s3cr3t") {
		t.Fatalf("the secret is echoed:\n%s", out.String())
	}
	want := map[string]string{
		"settings.json":       "named pipe",
		"sandbox.json":        "character device",
		"lsp.json":            "outside the project",
		"agents/key.md":       "outside the project",
		"skills":              "outside the project",
		"extensions/tty.json": "character device",
		"agents/bomb.md":      "aliases expand to more than",
	}
	for f, msg := range want {
		found := false
		for _, d := range list {
			if d.Span.Src != nil && d.Span.Src.Name == filepath.Join(pi, f) && d.Severity == diag.Error && strings.Contains(d.Message, msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no error containing %q in\n%s", f, msg, out.String())
		}
	}
}

// TestGlobalLinksFollowed: links in the agent dir are the user's own (dotfiles): followed.
func TestGlobalLinksFollowed(t *testing.T) {
	root := writeTree(t, map[string]string{"dotfiles/settings.json": `{"quietStartup": true}`})
	os.MkdirAll(filepath.Join(root, "home", ".pi", "agent"), 0o755)
	if err := os.Symlink(filepath.Join(root, "dotfiles", "settings.json"), filepath.Join(root, "home", ".pi", "agent", "settings.json")); err != nil {
		t.Fatal(err)
	}
	cfg := loadTree(t, root, nil)
	f := cfg.Layer(config.Settings, config.Global)
	if f == nil || f.Broken || len(f.Src.Text) == 0 {
		t.Fatalf("the linked global settings were not read: %+v", f)
	}
}

// TestSuperLinearInputs: inputs that once took seconds to minutes (40k unknown keys: a
// did-you-mean per key and a quadratic duplicate scan; a million-digit integer: math/big)
// are checked within generous bounds, with their diagnostics.
func TestSuperLinearInputs(t *testing.T) {
	var keys strings.Builder
	keys.WriteString("{")
	for i := range 40000 {
		fmt.Fprintf(&keys, "%q: %d,", fmt.Sprintf("unknownKey%d", i), i)
	}
	keys.WriteString(`"quietStartup": true}`)
	for name, tc := range map[string]struct{ src, msg string }{
		"40k unknown keys":      {keys.String(), `unknown field "unknownKey39999"`},
		"million-digit integer": {`{"retry": {"maxRetries": ` + strings.Repeat("9", 1_000_000) + `}, "quietStartup": ` + strings.Repeat("9", 1_000_000) + `}`, "quietStartup: expected a boolean"},
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, map[string]string{"home/.pi/agent/settings.json": tc.src})
			var list diag.List
			withinBounds(t, func() { list = loadTree(t, root, nil).Check() })
			found := false
			for _, d := range list {
				found = found || strings.Contains(d.Message, tc.msg)
				if len(d.Message) > 400 {
					t.Fatalf("a message echoes the input: %.200s...", d.Message)
				}
			}
			if !found {
				t.Errorf("no diagnostic containing %q among %d", tc.msg, len(list))
			}
		})
	}
}

// TestCUEExtensionBounded: a CUE extension whose evaluation runs away (a nested comprehension
// of ten million elements, a list.Range of a hundred million) is stopped by the pigo-cue
// helper's limits and reported; a normal CUE extension still loads.
func TestCUEExtensionBounded(t *testing.T) {
	old := cuehelper.CPU
	cuehelper.CPU = time.Second
	defer func() { cuehelper.CPU = old }()
	digits := "[0,1,2,3,4,5,6,7,8,9]"
	root := writeTree(t, map[string]string{
		"home/.pi/agent/extensions/loop.cue": "_l: [for i in " + digits + " for j in " + digits + " for k in " + digits + " for l in " + digits +
			" for m in " + digits + " for n in " + digits + " for o in " + digits + " {i+j+k+l+m+n+o}]\n" +
			`tools: [{name: "t1", description: "d", parameters: {type: "object"}}]` + "\n",
		"home/.pi/agent/extensions/range.cue": "import \"list\"\n_big: list.Range(0, 100000000, 1)\n" +
			`tools: [{name: "t2", description: "d", parameters: {type: "object"}}]` + "\n",
		"home/.pi/agent/extensions/fine.cue": `tools: [{name: "t3", description: "d", parameters: {type: "object"}}]` + "\n",
	})
	var list diag.List
	withinBounds(t, func() { list = loadTree(t, root, nil).Check() })
	limited := map[string]bool{}
	for _, d := range list {
		if d.Code == "eval-limit" {
			limited[filepath.Base(d.Span.Src.Name)] = true
		}
		if strings.HasSuffix(d.Span.Src.Name, "fine.cue") {
			t.Errorf("fine.cue: %s", d.Message)
		}
	}
	if !limited["loop.cue"] || !limited["range.cue"] {
		t.Errorf("limited: %v", limited)
	}
}
