package pkgs

import (
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Kind is the kind of a package source.
type Kind string

// The source kinds of pi's package manager.
const (
	NPM   Kind = "npm"
	Git   Kind = "git"
	Local Kind = "local"
)

// Source is one parsed `packages` entry (or install argument), following pi 1.6's rules:
// `npm:SPEC`, `git:URL-or-shorthand[@ref]`, an explicit https/http/ssh/git URL, else a local path.
type Source struct {
	// Raw is the source as written.
	Raw  string
	Kind Kind
	// npm: Spec is what follows "npm:" (name@version), Name the package name, Version what
	// follows the name's "@" (a version, a range or a tag), Pinned true for an exact version.
	Spec, Name, Version string
	// Pinned is true for an exact npm version and for any git ref.
	Pinned bool
	// git: Repo is what git clones, Host and Path name the checkout (agent/git/HOST/PATH), Ref
	// the ref to check out ("" for the default branch).
	Repo, Host, Path, Ref string
	// Local is the path as written (trimmed), resolved against the declaring file's folder.
	Local string
}

// localPrefixes are the prefixes that make a source not a local path (pi's isLocalPath).
var nonLocalPrefixes = []string{"npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:"}

// IsLocalPath reports whether a source or resource entry is a local path (pi's isLocalPath):
// anything but npm:, git:, github:, http(s):, ssh: and builtin: entries.
func IsLocalPath(s string) bool {
	t := strings.TrimSpace(s)
	for _, p := range nonLocalPrefixes {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// Parse parses a package source the way pi's parseSource does.
func Parse(s string) Source {
	if strings.HasPrefix(s, "npm:") {
		spec := strings.TrimSpace(s[len("npm:"):])
		name, version := splitNpmSpec(spec)
		return Source{Raw: s, Kind: NPM, Spec: spec, Name: name, Version: version, Pinned: ExactVersion(version)}
	}
	if IsLocalPath(s) {
		return Source{Raw: s, Kind: Local, Local: strings.TrimSpace(s)}
	}
	if g, ok := parseGit(s); ok {
		g.Raw = s
		return g
	}
	return Source{Raw: s, Kind: Local, Local: strings.TrimSpace(s)}
}

var npmSpec = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$`) }}

// splitNpmSpec splits "name@version" ("@scope/name@version") as pi's parseNpmSpec does.
func splitNpmSpec(spec string) (name, version string) {
	m := npmSpec.Get().FindStringSubmatch(spec)
	if m == nil {
		return spec, ""
	}
	return m[1], m[2]
}

// Identity is what makes two declarations the same package (pi's getPackageIdentity): the npm
// name, the git host and path without the ref (SSH and HTTPS alike), or the absolute path of a
// local source resolved against base (the declaring settings file's folder).
func (s Source) Identity(l Layout, base string) string {
	switch s.Kind {
	case NPM:
		return "npm:" + s.Name
	case Git:
		return "git:" + s.Host + "/" + s.Path
	}
	return "local:" + l.ResolvePath(s.Local, base)
}

// Tag is the package part of a slash-menu source tag (pi's getAutocompleteSourceTag): the npm
// source as written, or git:HOST/PATH[@REF]; "" for a local package.
func (s Source) Tag() string {
	switch s.Kind {
	case NPM:
		return s.Raw
	case Git:
		t := "git:" + s.Host + "/" + s.Path
		if s.Ref != "" {
			t += "@" + s.Ref
		}
		return t
	}
	return ""
}

// Display names a package for messages: the source as written.
func (s Source) Display() string { return s.Raw }

var protoURL = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(https?|ssh|git)://`) }}

// parseGit is pi's parseGitUrl: with the git: prefix every historical shorthand is accepted
// (host/path, git@host:path, URLs); without it only explicit protocol URLs. pigo also accepts
// git:file:///PATH (a repository on this machine; pi does not parse it).
func parseGit(source string) (Source, bool) {
	t := strings.TrimSpace(source)
	hasPrefix := strings.HasPrefix(t, "git:")
	u := t
	if hasPrefix {
		u = strings.TrimSpace(t[4:])
	}
	if hasPrefix && strings.HasPrefix(strings.ToLower(u), "file://") {
		return parseFileGit(u)
	}
	if !hasPrefix && !protoURL.Get().MatchString(u) {
		return Source{}, false
	}
	// A #committish (hosted-git-info's form) is a ref too.
	frag := ""
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u, frag = u[:i], u[i+1:]
	}
	repo, ref := splitRef(u)
	if ref == "" {
		ref = frag
	}
	var host, p string
	if m := scpLike.Get().FindStringSubmatch(repo); m != nil {
		host, p = m[1], m[2]
	} else if protoURL.Get().MatchString(repo) {
		pu, err := url.Parse(repo)
		if err != nil {
			return Source{}, false
		}
		host, p = pu.Hostname(), strings.TrimLeft(pu.Path, "/")
	} else {
		i := strings.IndexByte(repo, '/')
		if i < 0 {
			return Source{}, false
		}
		host, p = repo[:i], repo[i+1:]
		if !strings.Contains(host, ".") && host != "localhost" {
			return Source{}, false
		}
		repo = "https://" + repo
	}
	return buildGit(repo, host, p, ref)
}

var scpLike = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^git@([^:]+):(.+)$`) }}

// splitRef splits a trailing @ref off a git URL or shorthand (pi's splitRef).
func splitRef(u string) (repo, ref string) {
	if m := scpLike.Get().FindStringSubmatch(u); m != nil {
		pathRef := m[2]
		i := strings.IndexByte(pathRef, '@')
		if i < 0 || i == 0 || i == len(pathRef)-1 {
			return u, ""
		}
		return "git@" + m[1] + ":" + pathRef[:i], pathRef[i+1:]
	}
	if strings.Contains(u, "://") {
		pu, err := url.Parse(u)
		if err != nil {
			return u, ""
		}
		pathRef := strings.TrimLeft(pu.Path, "/")
		i := strings.IndexByte(pathRef, '@')
		if i <= 0 || i == len(pathRef)-1 {
			return u, ""
		}
		pu.Path = "/" + pathRef[:i]
		pu.RawPath = ""
		return strings.TrimSuffix(pu.String(), "/"), pathRef[i+1:]
	}
	slash := strings.IndexByte(u, '/')
	if slash < 0 {
		return u, ""
	}
	host, pathRef := u[:slash], u[slash+1:]
	i := strings.IndexByte(pathRef, '@')
	if i <= 0 || i == len(pathRef)-1 {
		return u, ""
	}
	return host + "/" + pathRef[:i], pathRef[i+1:]
}

// buildGit validates the parts (pi's buildGitSource): a path of at least two segments, no
// absolute path, no "..", no backslash or NUL, and a host without "/", so that the checkout
// folder agent/git/HOST/PATH stays inside agent/git.
func buildGit(repo, host, p, ref string) (Source, bool) {
	if strings.HasPrefix(p, "/") {
		return Source{}, false
	}
	p = strings.TrimLeft(strings.TrimSuffix(p, ".git"), "/")
	if host == "" || p == "" || len(strings.Split(p, "/")) < 2 {
		return Source{}, false
	}
	if unsafePart(host, false) || unsafePart(p, true) {
		return Source{}, false
	}
	return Source{Kind: Git, Repo: repo, Host: host, Path: p, Ref: ref, Pinned: ref != ""}, true
}

func unsafePart(v string, allowSlash bool) bool {
	dec, err := url.PathUnescape(v)
	if err != nil {
		return true
	}
	for _, c := range []string{v, dec} {
		if strings.ContainsAny(c, "\x00\\") || strings.HasPrefix(c, "/") {
			return true
		}
		if !allowSlash && strings.Contains(c, "/") {
			return true
		}
		for _, seg := range strings.Split(c, "/") {
			if seg == ".." {
				return true
			}
		}
	}
	return false
}

// parseFileGit parses git:file:///PATH[@ref]: a repository on this machine, checked out under
// agent/git/file/PATH (a pigo extension: pi reads such a source as a local path).
func parseFileGit(u string) (Source, bool) {
	rest := u[len("file://"):]
	if !strings.HasPrefix(rest, "/") {
		return Source{}, false
	}
	ref := ""
	if i := strings.LastIndexByte(rest, '@'); i > strings.LastIndexByte(rest, '/') && i < len(rest)-1 {
		rest, ref = rest[:i], rest[i+1:]
	}
	clean := path.Clean(rest)
	p := strings.TrimSuffix(strings.TrimLeft(clean, "/"), ".git")
	if p == "" || unsafePart(p, true) {
		return Source{}, false
	}
	return Source{Kind: Git, Repo: "file://" + clean, Host: "file", Path: p, Ref: ref, Pinned: ref != ""}, true
}
