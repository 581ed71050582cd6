package config

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/jsonedit"
)

// editHome copies testdata/edit/NAME into a fresh agent dir and loads the configuration.
func editHome(t *testing.T, files ...string) (home string, c *Config) {
	t.Helper()
	home = t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "edit", f))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(home, ".pi", "agent", f), string(data))
	}
	return home, load(t, home, t.TempDir(), nil)
}

// TestEditGolden applies edits to commented files through Config.Edit and compares the bytes
// written with testdata/edit/NAME.out.json.
func TestEditGolden(t *testing.T) {
	cases := []struct {
		name string
		kind Kind
		ops  []EditOp
	}{
		{"settings-set-scalar", Settings, []EditOp{{OpSet, "theme", []byte(`"light"`)}}},
		{"settings-set-nested-new", Settings, []EditOp{{OpSet, "personalExtensions.codemodeOnlyTools", []byte(`["aft_*"]`)}}},
		{"settings-set-new-object", Settings, []EditOp{{OpSet, "terminal", []byte(`{"showImages": false}`)}}},
		{"settings-unset-commented", Settings, []EditOp{{OpUnset, "personalExtensions.fileIo", nil}}},
		{"settings-unset-element", Settings, []EditOp{{OpUnset, "personalExtensions.disabledTools[0]", nil}}},
		{"settings-add", Settings, []EditOp{{OpAdd, "personalExtensions.disabledTools", []byte(`"lsp-*"`)}, {OpAdd, "packages", []byte(`"npm:b"`)}}},
		{"settings-several", Settings, []EditOp{{OpSet, "quietStartup", []byte(`false`)}, {OpUnset, "packages", nil}, {OpSet, "defaultThinkingLevel", []byte(`"high"`)}}},
		{"sandbox-set-mode", Sandbox, []EditOp{{OpSet, "fs.mode", []byte(`"readonly"`)}}},
		{"sandbox-add-rule", Sandbox, []EditOp{{OpAdd, "approvalRules", []byte(`{"action": "deny", "pattern": "git push *"}`)}}},
		{"sandbox-new-axis", Sandbox, []EditOp{{OpSet, "network.mode", []byte(`"limited"`)}, {OpAdd, "network.allowlist", []byte(`"github.com"`)}}},
		{"lsp-set-arg", LSP, []EditOp{{OpSet, "servers.gopls.args[0]", []byte(`"-rpc.trace"`)}}},
		{"lsp-new-server", LSP, []EditOp{{OpSet, "servers.pyright", []byte(`{"bin": "pyright-langserver", "args": ["--stdio"]}`)}}},
		{"lsp-watch-add", LSP, []EditOp{{OpAdd, "watch.ignore", []byte(`"dist"`)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, cfg := editHome(t, FileName(c.kind))
			ch, err := cfg.Edit(c.kind, Global, c.ops...)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "edit/"+c.name+".out.json", ch.New)
			if err := ch.Write(); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(ch.File)
			if !bytes.Equal(got, ch.New) {
				t.Errorf("file holds %q, want the change", got)
			}
		})
	}
}

// TestEditCreatesFile: a missing project file is created, with .pi/.
func TestEditCreatesFile(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	cfg := load(t, home, proj, ptr(true))
	ch, err := cfg.Edit(Sandbox, Project, EditOp{OpSet, "fs.mode", []byte(`"readonly"`)})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Old != nil || ch.File != filepath.Join(proj, ".pi", "sandbox.json") {
		t.Fatalf("change %s old=%q", ch.File, ch.Old)
	}
	if err := ch.Write(); err != nil {
		t.Fatal(err)
	}
	golden(t, "edit/created.out.json", mustRead(t, ch.File))
	e, _ := load(t, home, proj, ptr(true)).Effective(Sandbox)
	if got := string(e.JSON()); got != `{"fs":{"mode":"readonly"}}` {
		t.Errorf("effective %s", got)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEditRefusals: each bad edit is an *EditError with a clear message and nothing changes.
func TestEditRefusals(t *testing.T) {
	cases := []struct {
		name, file string
		kind       Kind
		op         EditOp
		want       string
	}{
		{"wrong type", "settings.json", Settings, EditOp{OpSet, "theme", []byte(`42`)}, "would make the configuration invalid"},
		{"enum", "sandbox.json", Sandbox, EditOp{OpSet, "fs.mode", []byte(`"sideways"`)}, "would make the configuration invalid"},
		{"unknown key", "settings.json", Settings, EditOp{OpSet, "quietStartpu", []byte(`true`)}, `unknown key "quietStartpu"`},
		{"unknown nested key", "sandbox.json", Sandbox, EditOp{OpSet, "fs.mdoe", []byte(`"readonly"`)}, `did you mean "fs.mode"?`},
		{"index out of range", "lsp.json", LSP, EditOp{OpSet, "servers.gopls.args[5]", []byte(`"x"`)}, "index 5 out of range"},
		{"through a non-object", "settings.json", Settings, EditOp{OpSet, "theme.dark", []byte(`1`)}, "not an object"},
		{"add to a scalar", "settings.json", Settings, EditOp{OpAdd, "theme", []byte(`"x"`)}, "add appends to a list"},
		{"unset missing", "settings.json", Settings, EditOp{OpUnset, "hideThinkingBlock", nil}, "is not set"},
		{"bad JSON value", "settings.json", Settings, EditOp{OpSet, "theme", []byte(`{`)}, "invalid JSON value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, cfg := editHome(t, c.file)
			path := filepath.Join(home, ".pi", "agent", c.file)
			before := mustRead(t, path)
			_, err := cfg.Edit(c.kind, Global, c.op)
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Fatalf("want an EditError, got %v", err)
			}
			if msg := ee.Error() + fmt.Sprint(ee.Diags); !strings.Contains(msg, c.want) {
				t.Errorf("error %q does not say %q", msg, c.want)
			}
			if !bytes.Equal(before, mustRead(t, path)) {
				t.Error("the file changed")
			}
		})
	}
}

// TestEditRefusesInvalidFile: a file that does not parse is never rewritten, even by a good
// edit; one with schema errors is edited as long as the edit adds no error (issue 11 item 6:
// the edit that fixes the error must go through).
func TestEditRefusesInvalidFile(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), `{"theme": "dark",,}`)
	_, err := load(t, home, t.TempDir(), nil).Edit(Settings, Global, EditOp{OpSet, "quietStartup", []byte(`true`)})
	var ee *EditError
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "does not parse") || len(ee.Diags) == 0 {
		t.Errorf("want a refusal naming the syntax error, got %v", err)
	}
	for _, tc := range []struct {
		op     EditOp
		refuse bool
	}{
		{EditOp{OpSet, "theme", []byte(`"light"`)}, false},     // fixes the error
		{EditOp{OpUnset, "theme", nil}, false},                 // removes it
		{EditOp{OpSet, "quietStartup", []byte(`true`)}, false}, // leaves it, adds none
		{EditOp{OpSet, "quietStartup", []byte(`3`)}, true},     // adds one
	} {
		home := t.TempDir()
		write(t, filepath.Join(home, ".pi", "agent", "settings.json"), `{"theme": 42}`)
		ch, err := load(t, home, t.TempDir(), nil).Edit(Settings, Global, tc.op)
		if tc.refuse {
			if !errors.As(err, &ee) || len(ee.Diags) != 1 || !strings.Contains(ee.Diags[0].Message, "quietStartup") {
				t.Errorf("%v: want a refusal naming only the new error, got %v", tc.op, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: refused: %v", tc.op, err)
			continue
		}
		if err := ch.Write(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEditWarningsShown: an edit that adds a warning goes through and names it.
func TestEditWarningsShown(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), `{"personalExtensions": {"disabledTools": ["nope_*"]}}`)
	ch, err := load(t, home, t.TempDir(), nil).Edit(Settings, Global, EditOp{OpAdd, "personalExtensions.disabledTools", []byte(`"zzz_*"`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Warnings) != 1 || !strings.Contains(ch.Warnings[0].Message, `"zzz_*" matches no tool`) {
		t.Fatalf("warnings %v", ch.Warnings)
	}
}

// TestEditReadOnly: a read-only file is refused at write time and left as it was.
func TestEditReadOnly(t *testing.T) {
	home, cfg := editHome(t, "settings.json")
	path := filepath.Join(home, ".pi", "agent", "settings.json")
	before := mustRead(t, path)
	os.Chmod(path, 0o444)
	ch, err := cfg.Edit(Settings, Global, EditOp{OpSet, "theme", []byte(`"light"`)})
	if err != nil {
		t.Fatal(err)
	}
	err = ch.Write()
	var ee *EditError
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "read-only") {
		t.Fatalf("want a read-only refusal, got %v", err)
	}
	if !bytes.Equal(before, mustRead(t, path)) {
		t.Error("the file changed")
	}
}

// TestEditConcurrentChange: a change made between reading and writing is detected; the other
// writer's content survives.
func TestEditConcurrentChange(t *testing.T) {
	home, cfg := editHome(t, "settings.json")
	path := filepath.Join(home, ".pi", "agent", "settings.json")
	ch, err := cfg.Edit(Settings, Global, EditOp{OpSet, "theme", []byte(`"light"`)})
	if err != nil {
		t.Fatal(err)
	}
	other := []byte(`{"theme": "solarized"}`)
	os.WriteFile(path, other, 0o644)
	if err := ch.Write(); !errors.Is(err, jsonedit.ErrChanged) {
		t.Fatalf("want ErrChanged, got %v", err)
	}
	if !bytes.Equal(other, mustRead(t, path)) {
		t.Error("the concurrent writer's content was lost")
	}
	// A file created meanwhile where none was is detected too.
	proj := t.TempDir()
	ch, err = load(t, home, proj, ptr(true)).Edit(Settings, Project, EditOp{OpSet, "theme", []byte(`"x"`)})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(proj, ".pi", "settings.json"), `{}`)
	if err := ch.Write(); !errors.Is(err, jsonedit.ErrChanged) {
		t.Fatalf("want ErrChanged for a new file, got %v", err)
	}
}

// TestEditOverrideSeesEdit: the rebuilt configuration sees the edited bytes, including their
// effect on trust (a global defaultProjectTrust).
func TestEditOverrideSeesEdit(t *testing.T) {
	home, cfg := editHome(t, "settings.json")
	nc, err := cfg.Override(Settings, Global, []byte(`{"theme": "light"}`))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := nc.Effective(Settings)
	if string(e.JSON()) != `{"theme":"light"}` {
		t.Errorf("override not seen: %s", e.JSON())
	}
	// Trust follows an overridden global defaultProjectTrust.
	proj := t.TempDir()
	write(t, filepath.Join(proj, ".pi", "settings.json"), `{"theme": "p"}`)
	c2 := load(t, home, proj, nil)
	if c2.Trusted {
		t.Fatal("trusted without a decision")
	}
	nc, _ = c2.Override(Settings, Global, []byte(`{"defaultProjectTrust": "always"}`))
	if !nc.Trusted {
		t.Error("override of defaultProjectTrust not applied to trust")
	}
}

// comment is one comment of a JSONC text, by byte range.
type comment struct{ start, end int }

// commentsOf scans a JSONC text for comments, skipping strings.
func commentsOf(src []byte) []comment {
	var out []comment
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case bytes.HasPrefix(src[i:], []byte("//")):
			e := bytes.IndexByte(src[i:], '\n')
			if e < 0 {
				e = len(src) - i
			}
			out = append(out, comment{i, i + e})
			i += e
		case bytes.HasPrefix(src[i:], []byte("/*")):
			e := bytes.Index(src[i+2:], []byte("*/"))
			out = append(out, comment{i, i + 2 + e + 2})
			i += e + 3
		}
	}
	return out
}

// removedRegion returns the byte range an edit may take comments from: the replaced value (set),
// or the removed member itself, key to value (unset).
func removedRegion(src []byte, p jsonedit.Path, op string) (int, int) {
	if op == OpAdd {
		return 0, 0
	}
	root, err := jsonc.Parse(src)
	if err != nil {
		return 0, len(src)
	}
	n, parent := root, (*jsonc.Node)(nil)
	for _, st := range p {
		parent = n
		switch {
		case n == nil:
			return 0, 0
		case st.IsIndex:
			n = elemNode(n, st.Index)
		default:
			n = memberNode(n, st.Key)
		}
	}
	if n == nil {
		return 0, 0
	}
	if op == OpSet {
		return n.Start, n.End
	}
	// Unset: the member with the comments that belong to it (jsonedit.RemovedSpan).
	if lo, hi, err := jsonedit.RemovedSpan(src, p); err == nil {
		return lo, hi
	}
	start := n.Start
	if last := p[len(p)-1]; !last.IsIndex && parent != nil {
		for _, m := range parent.Members {
			if m.Key == last.Key {
				start = m.KeyStart
			}
		}
	}
	// Only the member itself (key to value): every comment around it must survive.
	return start, n.End
}

// TestEditProperty applies random sequences of set/unset/add through Config.Edit to the corpus
// files and checks after every accepted edit that the file parses and validates, that every
// comment outside the removed value survives, and that get returns what set wrote. Refused
// edits must leave the file untouched.
func TestEditProperty(t *testing.T) {
	type gen struct {
		kind Kind
		ops  []EditOp
	}
	pool := []gen{
		{Settings, []EditOp{
			{OpSet, "theme", []byte(`"light"`)}, {OpSet, "theme", []byte(`42`)}, {OpUnset, "theme", nil},
			{OpSet, "quietStartup", []byte(`false`)}, {OpSet, "quietStartup", []byte(`"yes"`)},
			{OpSet, "personalExtensions.fileIo", []byte(`"opencode"`)}, {OpSet, "personalExtensions.fileIo", []byte(`"vim"`)},
			{OpUnset, "personalExtensions.fileIo", nil}, {OpAdd, "personalExtensions.disabledTools", []byte(`"x_*"`)},
			{OpUnset, "personalExtensions.disabledTools[0]", nil}, {OpSet, "personalExtensions.disabledTools[1]", []byte(`"y"`)},
			{OpAdd, "packages", []byte(`"npm:z"`)}, {OpUnset, "packages", nil}, {OpSet, "terminal.showImages", []byte(`true`)},
			{OpSet, "defaultThinkingLevel", []byte(`"medium"`)}, {OpSet, "editorPaddingX", []byte(`9`)},
			{OpSet, "enabledModels", []byte(`["a/*", "b"]`)}, {OpUnset, "personalExtensions", nil},
		}},
		{Sandbox, []EditOp{
			{OpSet, "fs.mode", []byte(`"readonly"`)}, {OpSet, "fs.mode", []byte(`"nope"`)}, {OpUnset, "fs.mode", nil},
			{OpAdd, "fs.writablePaths", []byte(`"~/w"`)}, {OpUnset, "fs.writablePaths[0]", nil}, {OpSet, "network.mode", []byte(`"allow-all"`)},
			{OpAdd, "approvalRules", []byte(`{"action": "deny", "pattern": "rm *"}`)}, {OpAdd, "approvalRules", []byte(`{"action": "maybe"}`)},
			{OpUnset, "approvalRules[0]", nil}, {OpSet, "bwrapPath", []byte(`"/usr/bin/bwrap"`)}, {OpUnset, "fs", nil},
		}},
		{LSP, []EditOp{
			{OpSet, "servers.gopls.bin", []byte(`"/opt/gopls"`)}, {OpUnset, "servers.gopls.args", nil}, {OpAdd, "servers.gopls.args", []byte(`"-v"`)},
			{OpSet, "servers.ts", []byte(`{"bin": "tsls"}`)}, {OpSet, "watch.maxBatch", []byte(`0`)}, {OpSet, "watch.maxBatch", []byte(`10`)},
			{OpAdd, "watch.ignore", []byte(`"dist"`)}, {OpUnset, "watch", nil}, {OpSet, "maxOpenDocuments", []byte(`5`)},
		}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	accepted, refused := 0, 0
	for round := range 12 {
		for _, g := range pool {
			home, _ := editHome(t, FileName(g.kind))
			path := filepath.Join(home, ".pi", "agent", FileName(g.kind))
			proj := t.TempDir()
			for step := range 8 {
				op := g.ops[rng.IntN(len(g.ops))]
				cfg := load(t, home, proj, nil)
				old := mustRead(t, path)
				ch, err := cfg.Edit(g.kind, Global, op)
				if err != nil {
					var ee *EditError
					if !errors.As(err, &ee) {
						t.Fatalf("round %d step %d %s %s: not an EditError: %v", round, step, op.Op, op.Path, err)
					}
					refused++
					if !bytes.Equal(old, mustRead(t, path)) {
						t.Fatalf("refused edit changed the file")
					}
					continue
				}
				if err := ch.Write(); err != nil {
					t.Fatal(err)
				}
				accepted++
				now := mustRead(t, path)
				if _, err := jsonc.Parse(now); err != nil {
					t.Fatalf("%s %s: result does not parse: %v\n%s", op.Op, op.Path, err, now)
				}
				after := load(t, home, proj, nil)
				if errs := errorsIn(after.Check(), path); len(errs) > 0 {
					t.Fatalf("%s %s: accepted edit left errors: %v\n%s", op.Op, op.Path, errs, now)
				}
				p, _ := jsonedit.ParsePath(op.Path)
				rs, re := removedRegion(old, p, op.Op)
				for _, cm := range commentsOf(old) {
					if cm.start >= rs && cm.end <= re {
						continue
					}
					text := old[cm.start:cm.end]
					if bytes.Count(now, text) < countOutside(old, text, rs, re) {
						t.Fatalf("%s %s: comment %q lost\nbefore:\n%s\nafter:\n%s", op.Op, op.Path, text, old, now)
					}
				}
				if op.Op == OpSet {
					got, found, err := after.Get(g.kind, Global, op.Path)
					if err != nil || !found || !jsonEqual(got, op.Value) {
						t.Fatalf("get %s = %s (found %v, err %v), set wrote %s", op.Path, got, found, err, op.Value)
					}
					e, _ := after.Effective(g.kind)
					steps, _ := ParsePath(op.Path)
					if v := e.Lookup(steps); v == nil || !jsonEqual(v.JSON(), op.Value) {
						t.Fatalf("effective %s does not hold %s", op.Path, op.Value)
					}
				}
			}
		}
	}
	if accepted == 0 || refused == 0 {
		t.Errorf("accepted %d, refused %d: the generator does not exercise both", accepted, refused)
	}
	t.Logf("%d edits accepted, %d refused", accepted, refused)
}

func countOutside(src, text []byte, rs, re int) int {
	n := 0
	for i := 0; ; {
		j := bytes.Index(src[i:], text)
		if j < 0 {
			return n
		}
		at := i + j
		if at < rs || at+len(text) > re {
			n++
		}
		i = at + 1
	}
}

func jsonEqual(a, b []byte) bool {
	ra, err1 := jsonc.Parse(a)
	rb, err2 := jsonc.Parse(b)
	return err1 == nil && err2 == nil && bytes.Equal(ra.JSON(), rb.JSON())
}

// TestEditMovesAnError: removing an element before one in error moves the error (its index
// and line change); that is not a new error, so the edit goes through.
func TestEditMovesAnError(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), "{\n  \"defaultTools\": [\n    \"read\",\n    \"bash\",\n    42\n  ]\n}\n")
	ch, err := load(t, home, t.TempDir(), nil).Edit(Settings, Global, EditOp{OpUnset, "defaultTools[0]", nil})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !strings.Contains(string(ch.New), "42") || strings.Contains(string(ch.New), "read") {
		t.Errorf("result %s", ch.New)
	}
}
