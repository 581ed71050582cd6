package config

import (
	"path/filepath"
	"slices"
	"testing"
)

// names are the loaded (applied) files of kind, by name.
func names(c *Config, kind Kind) []string {
	var out []string
	for _, f := range c.Files {
		if f.Kind == kind && f.Applied {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Themes: settings.json's "themes" list adds files and folders before the themes/ folder's
// own, its patterns turn themes off ("!glob" over the folder's, "+path" back, "-path" over
// both), a theme found twice is listed once, and a project's list is read only when the
// project is trusted and only inside it.
func TestThemesListAndPatterns(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	proj := filepath.Join(home, "proj")
	write(t, filepath.Join(agent, "settings.json"), `{"themes": ["~/my-themes", "extra/one.json", "themes/dark.json", "!*-old.json", "+themes/keep-old.json", "-~/my-themes/no.json"]}`)
	for _, f := range []string{"themes/dark.json", "themes/light.json", "themes/x-old.json", "themes/keep-old.json", "extra/one.json"} {
		write(t, filepath.Join(agent, f), "{}")
	}
	write(t, filepath.Join(home, "my-themes", "mine.json"), "{}")
	write(t, filepath.Join(home, "my-themes", "no.json"), "{}")
	write(t, filepath.Join(home, "outside.json"), "{}")
	write(t, filepath.Join(proj, ".pi", "settings.json"), `{"themes": ["../../outside.json", "t"]}`)
	write(t, filepath.Join(proj, ".pi", "t", "p.json"), "{}")
	rel := func(c *Config) []string {
		var out []string
		for _, th := range c.Themes() {
			r, _ := filepath.Rel(home, th.Path)
			out = append(out, string(th.Scope)+":"+r)
		}
		return out
	}
	got := rel(load(t, home, proj, ptr(true)))
	want := []string{
		"project:proj/.pi/t/p.json",
		"global:my-themes/mine.json", "global:.pi/agent/extra/one.json", "global:.pi/agent/themes/dark.json",
		"global:.pi/agent/themes/keep-old.json", "global:.pi/agent/themes/light.json",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("trusted themes:\n got %q\nwant %q", got, want)
	}
	got = rel(load(t, home, proj, ptr(false)))
	if !slices.Equal(got, want[1:]) {
		t.Fatalf("untrusted themes:\n got %q\nwant %q", got, want[1:])
	}
}

// A project's .agents/skills folders load from the working folder up to the repository root
// for a trusted project, and make the folder a project (it asks for trust); outside a
// repository only the working folder's own (deliberate difference: pi goes up to /).
func TestProjectAgentsSkills(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	skill := func(p, name string) {
		write(t, filepath.Join(p, ".agents", "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: d\n---\nx\n")
	}
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: x\n")
	skill(root, "above")
	skill(repo, "top")
	skill(filepath.Join(repo, "a"), "mid")
	skill(filepath.Join(repo, "a", "b"), "here")
	c := load(t, home, filepath.Join(repo, "a", "b"), ptr(true))
	if got := names(c, Skill); !slices.Equal(got, []string{"here", "mid", "top"}) {
		t.Fatalf("skills in a repository: %q", got)
	}
	if !c.HasProject {
		t.Fatal(".agents/skills did not make the folder a project")
	}
	if got := names(load(t, home, filepath.Join(repo, "a", "b"), ptr(false)), Skill); len(got) != 0 {
		t.Fatalf("an untrusted project's skills loaded: %q", got)
	}
	plain := filepath.Join(root, "plain", "sub")
	skill(filepath.Join(root, "plain"), "parent")
	skill(plain, "own")
	if got := names(load(t, home, plain, ptr(true)), Skill); !slices.Equal(got, []string{"own"}) {
		t.Fatalf("skills outside a repository: %q", got)
	}
}

// The filter is pi's applyPatterns: includes (plain globs) narrow, "!" excludes, "+" brings an
// exact path back over an exclusion, "-" removes an exact path over everything; a SKILL.md is
// also matched by its folder.
func TestResourceFilter(t *testing.T) {
	base := "/a"
	for _, c := range []struct {
		pats []string
		path string
		want bool
	}{
		{nil, "/a/x.md", true},
		{[]string{"!x.md"}, "/a/x.md", false},
		{[]string{"!*.md", "+x.md"}, "/a/x.md", true},
		{[]string{"!*.md", "+x.md"}, "/a/s/x.md", false}, // "+" is exact on the relative or absolute path, not the name
		{[]string{"!*.md", "+./x.md"}, "/a/x.md", true},
		{[]string{"!*.md", "+/a/x.md"}, "/a/x.md", true},
		{[]string{"+x.md", "-x.md"}, "/a/x.md", false},
		{[]string{"s/*.md"}, "/a/s/x.md", true},
		{[]string{"s/*.md"}, "/a/t/x.md", false},
		{[]string{"!skills/old"}, "/a/skills/old/SKILL.md", false},
		{[]string{"!old"}, "/a/skills/old/SKILL.md", false},
		{[]string{"-skills/old"}, "/a/skills/old/SKILL.md", false},
		{[]string{"!old"}, "/a/skills/older/SKILL.md", true},
		{[]string{"!**/deep/**"}, "/a/x/deep/y/z.md", false},
	} {
		f := newResourceFilter(c.pats, base, "/home", true)
		if got := f.enabled(c.path); got != c.want {
			t.Errorf("%q on %s: %v, want %v", c.pats, c.path, got, c.want)
		}
	}
}
