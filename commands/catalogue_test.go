package commands

import (
	"encoding/json"
	"io/fs"
	"os"
	"slices"
	"sort"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"github.com/google/go-cmp/cmp"
	"github.com/pigo-agent/pigo/internal/cond"
)

// extension mirrors the fields of #Extension that these tests inspect.
type extension struct {
	Name    string    `json:"name"`
	Builtin bool      `json:"builtin"`
	Tools   []any     `json:"tools"`
	Cmds    []command `json:"commands"`
}

// command mirrors #Command.
type command struct {
	Name         string   `json:"name"`
	Description  string   `json:"description,omitempty"`
	ArgumentHint string   `json:"argumentHint,omitempty"`
	When         string   `json:"when,omitempty"`
	Prompt       string   `json:"prompt,omitempty"`
	Run          []string `json:"run,omitempty"`
	Match        string   `json:"match,omitempty"`
	Hidden       bool     `json:"hidden,omitempty"`
}

// loaded is one embedded file after validation against #Extension.
type loaded struct {
	file string
	ext  extension
}

// loadAll compiles schema/declarations.cue on its own, validates every
// embedded file against its #Extension, concretely, and decodes it; files
// come back in Order.
func loadAll(t *testing.T) []loaded {
	t.Helper()
	ctx := cuecontext.New()
	src, err := os.ReadFile("../schema/declarations.cue")
	if err != nil {
		t.Fatal(err)
	}
	schema := ctx.CompileBytes(src, cue.Filename("declarations.cue"))
	if err := schema.Err(); err != nil {
		t.Fatalf("schema: %s", errors.Details(err, nil))
	}
	def := schema.LookupPath(cue.ParsePath("#Extension"))
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
		if len(l.ext.Cmds) == 0 || len(l.ext.Tools) != 0 {
			t.Errorf("%s: %d commands, %d tools; want only commands", l.file, len(l.ext.Cmds), len(l.ext.Tools))
		}
		if l.ext.Builtin != (l.file == "pi.cue") {
			t.Errorf("%s: builtin = %v", l.file, l.ext.Builtin)
		}
		for _, c := range l.ext.Cmds {
			if c.Prompt != "" || c.Run != nil {
				t.Errorf("%s /%s: shipped commands are implemented in Go, not by prompt or run", l.file, c.Name)
			}
			if (c.Match != "") != l.ext.Builtin {
				t.Errorf("%s /%s: match %q is for built-ins only", l.file, c.Name, c.Match)
			}
			if c.Description == "" && !c.Hidden {
				t.Errorf("%s /%s: no description", l.file, c.Name)
			}
		}
	}
}

func TestPiCommands(t *testing.T) {
	exact := func(name, desc string) command { return command{Name: name, Description: desc, Match: "exact"} }
	args := func(name, hint, desc string) command {
		return command{Name: name, ArgumentHint: hint, Description: desc, Match: "args"}
	}
	hidden := func(name string) command { return command{Name: name, Match: "exact", Hidden: true} }
	want := []command{
		exact("settings", "Open settings menu"),
		args("model", "<provider/model>", "Select model (opens selector UI)"),
		exact("tree", "Navigate session tree (switch branches)"),
		args("thinking", "<level>", "Set thinking level"),
		exact("scoped-models", "Enable/disable models for Ctrl+P cycling"),
		args("export", "", "Export session (HTML default, or specify path: .html/.jsonl)"),
		args("import", "", "Import a JSONL session, preserving its ID and working directory"),
		exact("share", "Share session as a secret GitHub gist"),
		exact("copy", "Copy last agent message to clipboard"),
		args("name", "", "Set session display name"),
		exact("session", "Show session info and stats"),
		exact("changelog", "Show changelog entries"),
		exact("hotkeys", "Show all keyboard shortcuts"),
		exact("fork", "Create a new fork from a previous user message"),
		exact("clone", "Duplicate the current session at the current position"),
		exact("trust", "Save project trust decision for future sessions"),
		args("login", "<provider>", "Configure provider authentication"),
		exact("logout", "Remove provider authentication"),
		exact("new", "Start a new session"),
		args("compact", "", "Manually compact the session context"),
		exact("resume", "Resume another session"),
		exact("reload", "Reload keybindings, extensions, skills, prompts, themes, and context files"),
		exact("quit", "Quit pi"),
		hidden("debug"),
		hidden("arminsayshi"),
		hidden("dementedelves"),
	}
	l := loadAll(t)[0]
	if diff := cmp.Diff(want, l.ext.Cmds); diff != "" {
		t.Errorf("pi commands (-want +got):\n%s", diff)
	}
	visible := 0
	for _, c := range l.ext.Cmds {
		if !c.Hidden {
			visible++
		}
	}
	if visible != 23 || len(l.ext.Cmds)-visible != 3 {
		t.Errorf("%d visible, %d hidden; want 23 and 3", visible, len(l.ext.Cmds)-visible)
	}
}

func TestExtensionCommands(t *testing.T) {
	type entry struct{ Name, Hint string }
	want := map[string][]entry{
		"bwrap.cue": {
			{"bwrap", ""}, {"bwrap-fs-readonly", ""}, {"bwrap-fs-workspace-write", ""}, {"bwrap-fs-allow-all", ""},
			{"bwrap-network-block", ""}, {"bwrap-network-limited", ""}, {"bwrap-network-allow-all", ""},
			{"bwrap-reload", ""}, {"bwrap-deny-request", ""}, {"bwrap-allow-request", ""},
		},
		"lsp.cue": {{"lsp-stop", ""}, {"lsp-start", ""}, {"lsp-reload", "[id]"}},
		"mcp.cue": {{"mcp", "[login|logout|reconnect|enable|disable|exposure] [server]"}},
		"talk.cue": {
			{"talk", ""}, {"talk-dead", "[sessionId|--all]"}, {"talk-group-join", "[name]"},
			{"talk-group-join-last", "[--name <alias>]"}, {"talk-group-leave", ""}, {"talk-group-list", ""},
			{"talk-group-del", "<name>"}, {"talk-group-clear", ""},
		},
	}
	got := map[string][]entry{}
	for _, l := range loadAll(t) {
		if l.file == "pi.cue" {
			continue
		}
		for _, c := range l.ext.Cmds {
			got[l.file] = append(got[l.file], entry{c.Name, c.ArgumentHint})
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extension commands (-want +got):\n%s", diff)
	}
}

func TestCommandNamesUnique(t *testing.T) {
	seen := map[string]string{}
	for _, l := range loadAll(t) {
		for _, c := range l.ext.Cmds {
			if prev, ok := seen[c.Name]; ok {
				t.Errorf("/%s declared in %s and %s", c.Name, prev, l.file)
			}
			seen[c.Name] = l.file
		}
	}
}

func TestWhenConditionsCompile(t *testing.T) {
	for _, l := range loadAll(t) {
		for _, c := range l.ext.Cmds {
			if c.When == "" {
				continue
			}
			if _, err := cond.Compile(c.When); err != nil {
				t.Errorf("%s /%s: when %q: %v", l.file, c.Name, c.When, err)
			}
		}
	}
}
