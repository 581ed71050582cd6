package pkgs

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in                         string
		kind                       Kind
		name, version              string
		host, path, ref, repo, tag string
		pinned                     bool
	}{
		{in: "npm:pi-web-access", kind: NPM, name: "pi-web-access", tag: "npm:pi-web-access"},
		{in: "npm:@scope/pkg@1.2.3", kind: NPM, name: "@scope/pkg", version: "1.2.3", pinned: true, tag: "npm:@scope/pkg@1.2.3"},
		{in: "npm:pkg@^1.2", kind: NPM, name: "pkg", version: "^1.2", tag: "npm:pkg@^1.2"},
		{in: "npm:pkg@latest", kind: NPM, name: "pkg", version: "latest", tag: "npm:pkg@latest"},
		{in: "git:github.com/user/repo", kind: Git, host: "github.com", path: "user/repo", repo: "https://github.com/user/repo", tag: "git:github.com/user/repo"},
		{in: "git:github.com/user/repo@v1", kind: Git, host: "github.com", path: "user/repo", ref: "v1", repo: "https://github.com/user/repo", pinned: true, tag: "git:github.com/user/repo@v1"},
		{in: "git:git@github.com:kohei-homelab/homelab-skills@v0.12.0", kind: Git, host: "github.com", path: "kohei-homelab/homelab-skills", ref: "v0.12.0", repo: "git@github.com:kohei-homelab/homelab-skills", pinned: true, tag: "git:github.com/kohei-homelab/homelab-skills@v0.12.0"},
		{in: "https://github.com/dmmulroy/anti-slop", kind: Git, host: "github.com", path: "dmmulroy/anti-slop", repo: "https://github.com/dmmulroy/anti-slop", tag: "git:github.com/dmmulroy/anti-slop"},
		{in: "https://github.com/user/repo.git@main", kind: Git, host: "github.com", path: "user/repo", ref: "main", repo: "https://github.com/user/repo.git", pinned: true, tag: "git:github.com/user/repo@main"},
		{in: "ssh://git@example.org/team/tools", kind: Git, host: "example.org", path: "team/tools", repo: "ssh://git@example.org/team/tools", tag: "git:example.org/team/tools"},
		{in: "git:file:///srv/repos/tools.git@v2", kind: Git, host: "file", path: "srv/repos/tools", ref: "v2", repo: "file:///srv/repos/tools.git", pinned: true, tag: "git:file/srv/repos/tools@v2"},
		{in: "./local/pkg", kind: Local},
		{in: "github:user/repo", kind: Local}, // pi reads it as a (missing) local path
		{in: "git:nohost/x", kind: Local},     // a shorthand host must contain a dot
		{in: "git:github.com/../../etc", kind: Local},
	}
	for _, c := range cases {
		s := Parse(c.in)
		if s.Kind != c.kind || s.Name != c.name || s.Version != c.version || s.Host != c.host || s.Path != c.path ||
			s.Ref != c.ref || s.Repo != c.repo || s.Pinned != c.pinned || s.Tag() != c.tag {
			t.Errorf("Parse(%q) = %+v (tag %q)", c.in, s, s.Tag())
		}
	}
}

func TestIdentity(t *testing.T) {
	l := Layout{AgentDir: "/a/agent", Cwd: "/w", Home: "/h"}
	same := [][2]string{
		{"npm:pkg@1.0.0", "npm:pkg"},
		{"git:github.com/u/r@v1", "https://github.com/u/r"},
		{"git:git@github.com:u/r", "git:github.com/u/r@main"},
	}
	for _, p := range same {
		if a, b := Parse(p[0]).Identity(l, "/x"), Parse(p[1]).Identity(l, "/y"); a != b {
			t.Errorf("%s and %s: identities %q and %q differ", p[0], p[1], a, b)
		}
	}
	if got := Parse("../shared").Identity(l, "/a/agent"); got != "local:/a/shared" {
		t.Errorf("local identity = %q", got)
	}
	if got := Parse("~/pkgs/x").Identity(l, "/a/agent"); got != "local:/h/pkgs/x" {
		t.Errorf("local ~ identity = %q", got)
	}
}

func TestInstallPath(t *testing.T) {
	l := Layout{AgentDir: "/a", Cwd: "/w", Home: "/h"}
	cases := []struct {
		src   string
		scope Scope
		want  string
	}{
		{"npm:@s/p@1.0.0", User, "/a/npm/node_modules/@s/p"},
		{"npm:p", Project, "/w/.pi/npm/node_modules/p"},
		{"git:github.com/u/r@v1", User, "/a/git/github.com/u/r"},
		{"git:github.com/u/r", Project, "/w/.pi/git/github.com/u/r"},
		{"./x", User, "/a/x"},
		{"./x", Project, "/w/.pi/x"},
		{"npm:p", Temporary, "/a/tmp/extensions/npm/" + hash8("npm-") + "/node_modules/p"},
		{"git:github.com/u/r@v1", Temporary, "/a/tmp/extensions/git-github.com/" + hash8("git-github.com-u/r@v1") + "/u/r"},
	}
	for _, c := range cases {
		if got := l.InstallPath(Parse(c.src), c.scope); got != filepath.FromSlash(c.want) {
			t.Errorf("InstallPath(%s, %s) = %s, want %s", c.src, c.scope, got, c.want)
		}
	}
}

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}

func TestSatisfies(t *testing.T) {
	cases := []struct {
		v, r string
		ok   bool
	}{
		{"1.2.3", "", true}, {"1.2.3", "latest", true}, {"1.2.3", "1.2.3", true}, {"1.2.4", "1.2.3", false},
		{"1.9.0", "^1.2.3", true}, {"2.0.0", "^1.2.3", false}, {"0.2.9", "^0.2.3", true}, {"0.3.0", "^0.2.3", false},
		{"1.2.9", "~1.2.3", true}, {"1.3.0", "~1.2.3", false}, {"1.4.0", "1.x", true}, {"2.0.0", "1.x", false},
		{"1.5.0", ">=1.2.0 <2.0.0", true}, {"2.5.0", "1.x || >=2.5", true}, {"1.5.0", "1.0.0 - 1.4.0", false},
		{"0.67.0", "0.67.0", true}, {"0.28.0", "^0.28.0", true},
	}
	for _, c := range cases {
		if got := Satisfies(c.v, c.r); got != c.ok {
			t.Errorf("Satisfies(%q, %q) = %v", c.v, c.r, got)
		}
	}
	if !ExactVersion("1.2.3") || ExactVersion("^1.2.3") || ExactVersion("latest") || ExactVersion("") {
		t.Error("ExactVersion")
	}
}
