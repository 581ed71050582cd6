package pkgs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// write creates files (name → content) below dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const skill = "---\ndescription: d\n---\nbody\n"

// fixture is an agent dir with one npm package "conv" (conventional folders) and one "mani"
// (a pi manifest with globs and exclusions).
func fixture(t *testing.T) Layout {
	t.Helper()
	root := t.TempDir()
	l := Layout{AgentDir: filepath.Join(root, "agent"), Cwd: filepath.Join(root, "work"), Home: root}
	conv := filepath.Join(l.AgentDir, "npm", "node_modules", "conv")
	write(t, conv, map[string]string{
		"package.json":                   `{"name":"conv","version":"1.0.0"}`,
		"skills/a/SKILL.md":              skill,
		"skills/a/sub/SKILL.md":          skill, // inside a skill: not searched
		"skills/b/SKILL.md":              skill,
		"skills/group/c/SKILL.md":        skill,
		"skills/loose.md":                skill,
		"skills/readme.md":               "# no frontmatter: not a skill\n",
		"skills/.hidden/SKILL.md":        skill,
		"skills/node_modules/x/SKILL.md": skill,
		"prompts/one.md":                 "one",
		"prompts/nested/two.md":          "two",
		"prompts/ignored.md":             "x",
		"prompts/.gitignore":             "ignored.md\n",
		"themes/dark.json":               "{}",
		"extensions/main.ts":             "",
		"extensions/tool/index.ts":       "",
		"extensions/notes.txt":           "",
	})
	mani := filepath.Join(l.AgentDir, "npm", "node_modules", "mani")
	write(t, mani, map[string]string{
		"package.json": `{"name":"mani","version":"2.0.0","pi":{"extensions":["./src/index.ts"],
			"skills":["./res/skills"],"prompts":["res/prompts/*.md","!res/prompts/draft*"],"themes":["./res/themes/keep.json"]}}`,
		"src/index.ts":              "",
		"res/skills/x/SKILL.md":     skill,
		"res/skills/y/SKILL.md":     skill,
		"res/prompts/review.md":     "r",
		"res/prompts/draft-plan.md": "d",
		"res/themes/keep.json":      "{}",
		"res/themes/other.json":     "{}",
		"skills/unlisted/SKILL.md":  skill, // the manifest decides: not loaded
	})
	return l
}

func rel(l Layout, rs []Resource) []string {
	var out []string
	for _, r := range rs {
		p, _ := filepath.Rel(filepath.Join(l.AgentDir, "npm", "node_modules"), r.Path)
		out = append(out, filepath.ToSlash(p))
	}
	return out
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestResolveConventionAndManifest(t *testing.T) {
	l := fixture(t)
	r := Resolve(l, []Entry{{Source: "npm:conv", Scope: User}, {Source: "npm:mani@^2", Scope: User}}, Options{})
	eq(t, "skills", rel(l, r.Enabled(Skills)), []string{"conv/skills/a/SKILL.md", "conv/skills/b/SKILL.md",
		"conv/skills/group/c/SKILL.md", "conv/skills/loose.md", "mani/res/skills/x/SKILL.md", "mani/res/skills/y/SKILL.md"})
	eq(t, "prompts", rel(l, r.Enabled(Prompts)), []string{"conv/prompts/nested/two.md", "conv/prompts/one.md", "mani/res/prompts/review.md"})
	eq(t, "themes", rel(l, r.Enabled(Themes)), []string{"conv/themes/dark.json", "mani/res/themes/keep.json"})
	eq(t, "extensions", rel(l, r.Enabled(Extensions)), []string{"conv/extensions/main.ts", "conv/extensions/tool/index.ts", "mani/src/index.ts"})
	for _, p := range r.Packages {
		if !p.Installed || p.Stale {
			t.Errorf("%s: installed %v stale %v", p.Source.Raw, p.Installed, p.Stale)
		}
	}
}

func TestResolveFilters(t *testing.T) {
	l := fixture(t)
	f := func(m map[Type][]string) Entry {
		return Entry{Source: "npm:conv", Object: true, Filter: m, Scope: User}
	}
	cases := []struct {
		name string
		e    Entry
		typ  Type
		want []string
	}{
		{"none", f(map[Type][]string{Skills: {}}), Skills, nil},
		{"omitted loads all", f(map[Type][]string{Prompts: {}}), Skills, []string{"conv/skills/a/SKILL.md", "conv/skills/b/SKILL.md", "conv/skills/group/c/SKILL.md", "conv/skills/loose.md"}},
		{"include glob", f(map[Type][]string{Skills: {"skills/group/**"}}), Skills, []string{"conv/skills/group/c/SKILL.md"}},
		{"by skill folder name", f(map[Type][]string{Skills: {"b"}}), Skills, []string{"conv/skills/b/SKILL.md"}},
		{"exclude", f(map[Type][]string{Skills: {"!a", "!loose.md"}}), Skills, []string{"conv/skills/b/SKILL.md", "conv/skills/group/c/SKILL.md"}},
		{"force include beats exclude", f(map[Type][]string{Skills: {"!*", "+skills/b/SKILL.md"}}), Skills, []string{"conv/skills/b/SKILL.md"}},
		{"force exclude beats include", f(map[Type][]string{Prompts: {"*.md", "-prompts/one.md"}}), Prompts, []string{"conv/prompts/nested/two.md"}},
		{"force exclude by folder", f(map[Type][]string{Skills: {"-skills/a"}}), Skills, []string{"conv/skills/b/SKILL.md", "conv/skills/group/c/SKILL.md", "conv/skills/loose.md"}},
		{"filters narrow, never widen", Entry{Source: "npm:mani", Object: true, Filter: map[Type][]string{Skills: {"+skills/unlisted/SKILL.md"}}, Scope: User}, Skills, []string{"mani/res/skills/x/SKILL.md", "mani/res/skills/y/SKILL.md"}},
	}
	for _, c := range cases {
		r := Resolve(l, []Entry{c.e}, Options{})
		eq(t, c.name, rel(l, r.Enabled(c.typ)), c.want)
	}
}

func TestResolveScopes(t *testing.T) {
	l := fixture(t)
	f := false
	// The project's entry replaces the user's…
	r := Resolve(l, []Entry{
		{Source: "npm:conv", Object: true, Filter: map[Type][]string{Skills: {"a"}}, Scope: Project},
		{Source: "npm:conv@1.0.0", Scope: User},
	}, Options{})
	if len(r.Packages) != 2 || r.Packages[0].Duplicate == "" {
		t.Fatalf("the user entry should lose to the project's: %+v", r.Packages)
	}
	// …(the project copy is not installed: nothing loads from it)…
	eq(t, "project replaces", rel(l, r.Enabled(Skills)), nil)
	// …unless it is an autoload:false delta, which narrows the user's declaration.
	r = Resolve(l, []Entry{
		{Source: "npm:conv", Object: true, Autoload: &f, Filter: map[Type][]string{Skills: {"-skills/b/SKILL.md"}}, Scope: Project},
		{Source: "npm:conv", Object: true, Filter: map[Type][]string{Skills: {"skills/a/SKILL.md", "skills/b/SKILL.md"}}, Scope: User},
	}, Options{})
	eq(t, "delta", rel(l, r.Enabled(Skills)), []string{"conv/skills/a/SKILL.md"})
	if r.Packages[0].Scope != User {
		t.Errorf("a delta resolves to the user's install, got %s", r.Packages[0].Scope)
	}
	// A duplicate within one file: the first wins.
	r = Resolve(l, []Entry{{Source: "npm:conv", Scope: User}, {Source: "npm:conv@1", Scope: User}}, Options{})
	if r.Packages[0].Duplicate == "" || r.Packages[0].Entry.Source != "npm:conv@1" {
		t.Errorf("second user declaration should be the duplicate: %+v", r.Packages[0])
	}
}

func TestResolveMissingStaleLocal(t *testing.T) {
	l := fixture(t)
	write(t, l.AgentDir, map[string]string{"mine/prompts/p.md": "p", "mine/index.ts": ""})
	write(t, l.Cwd, map[string]string{".pi/own/index.ts": ""})
	r := Resolve(l, []Entry{
		{Source: "npm:absent", Scope: User},
		{Source: "npm:conv@^3", Scope: User},
		{Source: "./mine", Scope: User},
		{Source: "own", Scope: Project},
		{Source: "./mine/index.ts", Scope: User},
	}, Options{})
	if p := r.Packages[0]; p.Installed {
		t.Error("npm:absent is not installed")
	}
	if p := r.Packages[1]; !p.Installed || !p.Stale || p.Version != "1.0.0" {
		t.Errorf("conv@^3 should be stale: %+v", p)
	}
	eq(t, "local prompts", rel(l, r.Enabled(Prompts))[2:], []string{"../../mine/prompts/p.md"})
	ext := rel(l, r.Enabled(Extensions))
	if !slices.Contains(ext, "../../../work/.pi/own") || !slices.Contains(ext, "../../mine/index.ts") {
		t.Errorf("a local folder without resources and a local file are extensions: %q", ext)
	}
}

func TestResolveHostile(t *testing.T) {
	l := fixture(t)
	outside := filepath.Join(l.Home, "secret")
	write(t, outside, map[string]string{"SKILL.md": skill, "key.md": skill})
	bad := filepath.Join(l.AgentDir, "npm", "node_modules", "bad")
	write(t, bad, map[string]string{
		"package.json":       `{"name":"bad","version":"1.0.0","pi":{"skills":["./skills","../../../../secret"],"prompts":["prompts"]}}`,
		"skills/ok/SKILL.md": skill,
	})
	if err := os.Symlink(outside, filepath.Join(bad, "skills", "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(bad, "prompts")); err != nil {
		t.Fatal(err)
	}
	r := Resolve(l, []Entry{{Source: "npm:bad", Scope: User}}, Options{})
	eq(t, "only the package's own skill", rel(l, r.Enabled(Skills)), []string{"bad/skills/ok/SKILL.md"})
	eq(t, "no prompts from outside", rel(l, r.Enabled(Prompts)), nil)
	var msgs []string
	for _, p := range r.Packages[0].Problems {
		msgs = append(msgs, p.Msg)
	}
	all := strings.Join(msgs, "\n")
	if strings.Count(all, "outside the package; pigo does not follow it") < 3 {
		t.Errorf("expected three refusals (two links, one manifest path), got:\n%s", all)
	}
	// A manifest path out of the package to nothing (pi-lens' "../../skills") is minor.
	write(t, filepath.Join(l.AgentDir, "npm", "node_modules", "lens"), map[string]string{
		"package.json": `{"name":"lens","version":"1.0.0","pi":{"skills":["../../skills"]}}`})
	r = Resolve(l, []Entry{{Source: "npm:lens", Scope: User}}, Options{})
	if ps := r.Packages[0].Problems; len(ps) != 1 || !ps[0].Minor || !strings.Contains(ps[0].Msg, "to nothing") {
		t.Errorf("lens: %+v", ps)
	}
}
