package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// EnvDir is the environment variable naming an explicit session directory.
const EnvDir = "PI_CODING_AGENT_SESSION_DIR"

// cwdDirName is pi's `cwd.replace(/[/\\:]/g, "-")`: each /, \ or : becomes -. The three are
// ASCII, so they are never part of a longer UTF-8 sequence and a byte loop replaces exactly
// what the regexp did. A regexp here cost a session's start 36 KB for its backtracker's
// bit state and its compilation (docs/decisions/25-speed.md, D25.44).
func cwdDirName(c string) string {
	i := strings.IndexAny(c, `/\:`)
	if i < 0 {
		return c
	}
	b := []byte(c)
	for ; i < len(b); i++ {
		switch b[i] {
		case '/', '\\', ':':
			b[i] = '-'
		}
	}
	return string(b)
}

// DefaultDir is pi's per-cwd session folder: AGENTDIR/sessions/--<cwd without its leading
// separator, with / \ : as ->--.
func DefaultDir(agentDir, cwd string) string {
	c := absPath(cwd)
	if strings.HasPrefix(c, "/") || strings.HasPrefix(c, `\`) {
		c = c[1:]
	}
	return filepath.Join(absPath(agentDir), "sessions", "--"+cwdDirName(c)+"--")
}

// Location is where a cwd's sessions live.
type Location struct {
	// Dir holds the session files.
	Dir string
	// Explicit is true for --session-dir or $PI_CODING_AGENT_SESSION_DIR: the files of every
	// cwd are in Dir itself, so listing filters by the header's cwd.
	Explicit bool
	// AgentDir is the agent directory (for --all over the default layout).
	AgentDir string
	// Cwd is the working directory (absolute).
	Cwd string
}

// Locate picks the session directory as pi does: the flag, else the environment variable
// (with ~ expanded), else the default per-cwd folder.
func Locate(agentDir, cwd, flagDir, envDir string) Location {
	l := Location{AgentDir: absPath(agentDir), Cwd: absPath(cwd)}
	switch {
	case flagDir != "":
		l.Dir, l.Explicit = absPath(expandTilde(flagDir)), true
	case envDir != "":
		l.Dir, l.Explicit = absPath(expandTilde(envDir)), true
	default:
		l.Dir = DefaultDir(agentDir, cwd)
	}
	// An explicit directory that is the default folder behaves as the default (pi compares).
	if l.Explicit && l.Dir == DefaultDir(agentDir, cwd) {
		l.Explicit = false
	}
	return l
}

func expandTilde(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// List returns the sessions of the location's cwd (every cwd with all), newest first. Files
// that are not sessions are skipped.
func List(l Location, all bool) ([]*Info, error) {
	var files []string
	switch {
	case all && !l.Explicit:
		root := filepath.Join(l.AgentDir, "sessions")
		dirs, err := os.ReadDir(root)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, d := range dirs {
			if d.IsDir() || d.Type()&os.ModeSymlink != 0 {
				files = append(files, jsonlFiles(filepath.Join(root, d.Name()))...)
			}
		}
	default:
		files = jsonlFiles(l.Dir)
	}
	var out []*Info
	for _, f := range files {
		in, err := ReadInfo(f)
		if err != nil {
			continue
		}
		if l.Explicit && !all && absPath(in.Cwd) != l.Cwd {
			continue
		}
		out = append(out, in)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].Path > out[j].Path
	})
	return out, nil
}

func jsonlFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Recent returns the session file of the location's cwd that was modified last (by file
// mtime, as pi's findMostRecentSession), or "" when there is none (-c then starts a new one).
func Recent(l Location) string {
	best, bestT := "", time.Time{}
	for _, f := range jsonlFiles(l.Dir) {
		h, err := readHeader(f)
		if err != nil {
			continue
		}
		if l.Explicit && (h.Cwd == "" || absPath(h.Cwd) != l.Cwd) {
			continue
		}
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		if best == "" || fi.ModTime().After(bestT) {
			best, bestT = f, fi.ModTime()
		}
	}
	return best
}

// readHeader reads the first JSON line of a file and checks that it is a session header.
func readHeader(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 4096)
	for read := 0; read < 1<<20; {
		line, err := r.ReadBytes('\n')
		read += len(line)
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var h Header
			if json.Unmarshal(t, &h) != nil {
				if err != nil {
					return nil, ErrNotSession
				}
				continue
			}
			if h.Type != TypeSession || h.ID == "" {
				return nil, ErrNotSession
			}
			return &h, nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, ErrNotSession
}

// Resolve turns a --session / --fork argument into a file: a path when it contains a
// separator or ends in .jsonl (relative to cwd), else a session id or a unique id prefix,
// looked up among this cwd's sessions first, then all. global is true when the match is
// another cwd's session.
func Resolve(l Location, arg string) (path string, global bool, err error) {
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") {
		if !filepath.IsAbs(arg) {
			arg = filepath.Join(l.Cwd, expandTilde(arg))
		}
		return filepath.Clean(arg), false, nil
	}
	for _, all := range []bool{false, true} {
		infos, err := List(l, all)
		if err != nil {
			return "", false, err
		}
		var matches []*Info
		for _, in := range infos {
			if in.ID == arg {
				return in.Path, all && absPath(in.Cwd) != l.Cwd, nil
			}
			if strings.HasPrefix(in.ID, arg) {
				matches = append(matches, in)
			}
		}
		if len(matches) == 1 {
			return matches[0].Path, all && absPath(matches[0].Cwd) != l.Cwd, nil
		}
		if len(matches) > 1 {
			var ids []string
			for _, m := range matches {
				ids = append(ids, m.ID)
			}
			return "", false, fmt.Errorf("session id %q is ambiguous: it matches %s", arg, strings.Join(ids, ", "))
		}
	}
	return "", false, fmt.Errorf("No session found matching '%s'", arg)
}

// Fork copies a session file into a new session of cwd in dir (pi's forkFrom, --fork): a new
// id and header with parentSession = the source, then every entry of the source as it is.
func Fork(source, cwd, dir string) (*Session, error) {
	source = absPath(source)
	src, err := open(source, OpenOptions{}, false)
	if err != nil {
		return nil, err
	}
	if len(src.header.raw) == 0 {
		return nil, fmt.Errorf("cannot fork: source session file is empty or invalid: %s", source)
	}
	s := New(cwd, dir, Options{ParentSession: source})
	for _, e := range src.entries {
		s.index(e)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := s.writeAll(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	s.flushed = true
	return s, nil
}

func trimSpace(s string) string { return strings.TrimSpace(s) }

// Find reads the session arg names in l (Resolve: a path, a session id or a unique id prefix),
// as `pigo session show` does.
func Find(l Location, arg string) (*Session, error) {
	path, _, err := Resolve(l, arg)
	if err != nil {
		return nil, err
	}
	return Read(path)
}
