// Package config finds, reads, validates and layers pigo's (and pi's) configuration files: the
// agent dir (`~/.pi/agent`), the project overlay (`DIR/.pi/`), command-line extensions and the
// embedded declarations. It is the public library behind `pigo check`, `pigo config` and every
// command that needs the effective configuration; it never imports UI code.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/frontmatter"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pkgs"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/stackgrow"
)

// MaxFileSize is the largest config file pigo reads; larger files are reported and skipped.
const MaxFileSize = 4 << 20

// Options says where to look.
type Options struct {
	// AgentDir is --agent-dir; empty means $PI_CODING_AGENT_DIR, else ~/.pi/agent.
	AgentDir string
	// ProjectDir is -C; empty means the current directory.
	ProjectDir string
	// Approve is --approve (true) / --no-approve (false); nil means decide from trust.json and
	// defaultProjectTrust.
	Approve *bool
	// AskTrust, when set, is asked about a project whose trust is "ask" (D5): a person at a
	// terminal answers. remember saves the answer in trust.json. Without it (no terminal),
	// "ask" means untrusted; pigo never blocks on a question.
	AskTrust func(dir string) (trusted, remember bool)
	// Extensions are -e files, loaded first.
	Extensions []string
	// Model is --model, the session model that check resolves for.
	Model string
	// Getenv reads the environment (nil means os.Getenv); Home overrides the home directory.
	Getenv func(string) string
	Home   string
	// Resolving says the caller resolves the configuration after loading it (pigo tools, a
	// session's start): Load then starts at once, on one other goroutine, what every
	// resolution does whatever the files say (Prepare) and the search for the AFT binary and
	// aft.jsonc (AFT, which depends on the home, the agent dir and the environment only), so
	// that they run on the other core while the files are read.
	Resolving bool
}

// File is one file pigo found (or was given), read and parsed but not yet validated.
type File struct {
	// Path is the path as shown to the user.
	Path  string
	Kind  Kind
	Scope Scope
	// Applied is false for files of an untrusted project and for broken files.
	Applied bool
	Src     *diag.Source
	// Root is the parsed JSON document, or the frontmatter of a Markdown file.
	Root *jsonc.Node
	// Doc is the split Markdown file (agents, prompts, skills).
	Doc *frontmatter.Doc
	// Name is the resource name for agents, prompts, skills and extensions.
	Name string
	// Broken is true when the file could not be read or parsed: it is skipped at run time.
	Broken bool
	// Legacy is set for a file under an old name (bwrap.json).
	Legacy bool
	// Dialect names a foreign format the file is written in (D15); such a file is not applied.
	Dialect string
	// Diags are the problems found while reading and validating this file.
	Diags diag.List
	// Package is the pi package a skill or prompt template comes from (nil for the agent
	// dir's and the project's own files).
	Package *pkgs.Package

	checked bool
}

// Config is everything pigo loaded for one agent dir and project.
type Config struct {
	Opts       Options
	AgentDir   string
	ProjectDir string
	Home       string
	// Trusted says whether the project overlay applies; TrustReason says why.
	Trusted     bool
	TrustReason string
	// HasProject is true when DIR/.pi/ holds any file pigo reads.
	HasProject bool
	Files      []*File
	// Diags are problems that belong to no single file (trust notices).
	Diags diag.List

	effective  map[Kind]*Effective
	notApplied *diag.List
	models     *modelIndex
	// unusable are the inputs pigo found and cannot use (code extensions, …): infos of check.
	unusable diag.List
	// resourceSeen are the skills and prompt templates added, by kind and real path (addOnce).
	resourceSeen map[string]bool
	// projectReal is the real path of ProjectDir (readOptions).
	projectReal string
	// paths memoises the working directory and directories' real paths while Load runs (nil
	// after: a Config that lives on resolves again).
	paths *safefile.Paths
	// dirs holds the resource directories listed during Load (listDir), each read once.
	dirs map[string]dirListing
	// known are the folders Load listed to know which of the files it looks for are absent
	// (knownAbsent): the agent dir and the project's .pi, with their entries' names folded.
	known []knownFolder
	// gate turns off the resources a settings pattern excludes while a folder is searched.
	gate *resourceFilter
	// mcpCfg is the effective mcp.json (MCP), read once.
	mcpCfg *MCPConfig
	// pkgs are the declared pi packages, resolved (discoverPackages).
	pkgs *pkgs.Result
	// aft is the aft binary and aft.jsonc, looked for once (AFT); when Options.Resolving,
	// Load's goroutine searches unless AFT claimed the search first (aftClaimed), and closes
	// aftDone when aftFound holds its result.
	aft        *AFTSetup
	aftDone    chan struct{}
	aftFound   *AFTSetup
	aftClaimed *atomic.Bool
	// whichAhead holds, once Load's goroutine looked them up, the answers of which() for the
	// names the shipped conditions ask about; the first resolution takes them (condEnv).
	whichAhead *atomic.Pointer[map[string]bool]
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// ResolveAgentDir applies D1: --agent-dir > $PI_CODING_AGENT_DIR (~ expanded) > ~/.pi/agent.
func ResolveAgentDir(o Options, home string) string {
	if o.AgentDir != "" {
		return expandHome(o.AgentDir, home)
	}
	if d := o.getenv("PI_CODING_AGENT_DIR"); d != "" {
		return expandHome(d, home)
	}
	return filepath.Join(home, ".pi", "agent")
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// Load discovers and reads every file of D1 for the given options. It never fails on bad
// files (they carry diagnostics); the error is for a missing home directory only.
func Load(o Options) (*Config, error) {
	home := o.Home
	if home == "" {
		home = o.getenv("HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("cannot find the home directory: %v", err)
		}
		home = h
	}
	c := &Config{Opts: o, Home: home, AgentDir: ResolveAgentDir(o, home), ProjectDir: o.ProjectDir}
	if c.ProjectDir == "" {
		c.ProjectDir = "."
	}
	if o.Resolving {
		env, done, claimed, ahead, look := c.aftEnv(), make(chan struct{}), new(atomic.Bool), new(atomic.Pointer[map[string]bool]), lookPath
		c.aftDone, c.aftClaimed, c.whichAhead = done, claimed, ahead
		go func() {
			// One copy of a shallow stack before the catalogue's decode and cond's compiles.
			stackgrow.GrowSmall()
			// The AFT search first: the resolution waits for it in condEnv, while the
			// catalogue it needs before (declarations) is Prepare's once, which the
			// resolution runs itself when it gets there first. When this goroutine starts
			// late (pigo -p: the other core is busy making os/signal's threads), AFT claims
			// the search and runs it instead of waiting for it.
			if claimed.CompareAndSwap(false, true) {
				c.aftFound = findAFT(env)
				close(done)
			}
			Prepare()
			if m := lookAhead(look); m != nil {
				ahead.Store(&m)
			}
		}()
	}
	c.paths, c.dirs = safefile.NewPaths(), map[string]dirListing{}
	defer func() { c.paths, c.dirs, c.known = nil, nil, nil }()
	c.discoverAgentDir()
	c.discoverProject()
	for _, e := range o.Extensions {
		if IsPackageSource(e) {
			continue // a pi package for this run: discoverPackages
		}
		if OpenAICostEntry(e) {
			continue // the seed's openai-cost: pigo's built-in provider (openAICostLoaded)
		}
		if msg := CodeExtension(e); msg != "" {
			// pi would run it; pigo says so instead of parsing TypeScript as JSONC.
			c.Diags.Add(diag.FileSpan(diag.NewSource(e, nil)), diag.Warning, "extension-skipped", "", msg)
			continue
		}
		c.addFile(e, Extension, CLI, true)
	}
	c.decideTrust()
	c.discoverPackages()
	c.noteOpenAICost()
	return c, nil
}

func (c *Config) discoverAgentDir() {
	dir := c.AgentDir
	c.listKnown(dir)
	for _, ki := range jsonKinds {
		c.addFile(filepath.Join(dir, ki.file), ki.kind, Global, false)
	}
	if f := c.addFile(filepath.Join(dir, "bwrap.json"), Sandbox, Global, false); f != nil {
		f.Legacy = true
	}
	c.addFile(filepath.Join(c.Home, ".pi", "web-search.json"), WebSearch, Global, false)
	c.discoverListed(Global)
	c.discoverResources(dir, Global)
	c.discoverAgentsSkills()
}

// ProjectOverlay returns DIR/.pi.
func (c *Config) ProjectOverlay() string { return filepath.Join(c.ProjectDir, ".pi") }

func (c *Config) discoverProject() {
	dir := c.ProjectOverlay()
	if c.sameDir(dir, filepath.Dir(c.AgentDir)) {
		return // DIR/.pi is the parent of the agent dir (pigo run from $HOME): not an overlay
	}
	c.listKnown(dir)
	n := len(c.Files)
	for _, ki := range jsonKinds {
		if ki.globalOnly {
			continue
		}
		c.addFile(filepath.Join(dir, ki.file), ki.kind, Project, false)
	}
	if f := c.addFile(filepath.Join(dir, "bwrap.json"), Sandbox, Project, false); f != nil {
		f.Legacy = true
	}
	c.discoverListed(Project)
	c.discoverResources(dir, Project)
	c.discoverProjectAgentsSkills()
	c.HasProject = len(c.Files) > n
}

func (c *Config) sameDir(a, b string) bool {
	aa, err1 := c.paths.Abs(a)
	bb, err2 := c.paths.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

func (c *Config) discoverResources(dir string, scope Scope) {
	for _, e := range c.listDir(filepath.Join(dir, "agents"), scope) {
		if strings.HasSuffix(e, ".md") {
			c.addFile(e, Agent, scope, true)
		}
	}
	c.gated(c.overrides(scope, "prompts", dir), func() {
		for _, e := range c.listDir(filepath.Join(dir, "prompts"), scope) {
			if strings.HasSuffix(e, ".md") {
				c.addOnce(e, Prompt, scope)
			}
		}
	})
	for _, e := range c.listDir(filepath.Join(dir, "extensions"), scope) {
		switch filepath.Ext(e) {
		case ".cue", ".json", ".jsonc":
			if c.oversizeExtension(e) {
				continue
			}
			c.addFile(e, Extension, scope, true)
		}
	}
	c.gated(c.overrides(scope, "skills", dir), func() {
		c.discoverSkills(filepath.Join(dir, "skills"), scope, 0, map[string]bool{})
	})
	c.discoverUnusable(dir, scope)
}

// listDir lists the entries of a resource directory, reporting what cannot be read. Dot-entries
// and node_modules are skipped as pi does.
func (c *Config) listDir(dir string, scope Scope) []string {
	if c.knownAbsent(dir) {
		return nil // what the check below and ReadDir's ENOENT come to
	}
	if o := c.readOptions(scope); o.Within != "" {
		if real, err := c.paths.EvalSymlinks(dir); err == nil && !safefile.Inside(c.paths.Real(real), o.Within) {
			c.ioProblem(dir, scope, &safefile.Refusal{Path: dir, Reason: fmt.Sprintf("is a symbolic link to %s, outside %s; pigo does not follow it", c.paths.Real(real), o.WithinName)})
			return nil
		}
	}
	entries, err := c.readDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.ioProblem(dir, scope, err)
		}
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// dirListing is what os.ReadDir gave for a directory.
type dirListing struct {
	entries []os.DirEntry
	err     error
}

// readDir is os.ReadDir, once per directory during a Load: discoverResources and
// discoverUnusable list the same extensions and prompts folders (each listing an open, two
// getdents and a close on the load's path). What is done with the listing, reports included,
// is done at each call as before.
func (c *Config) readDir(dir string) ([]os.DirEntry, error) {
	if c.dirs == nil {
		return os.ReadDir(dir)
	}
	if l, ok := c.dirs[dir]; ok {
		return l.entries, l.err
	}
	entries, err := os.ReadDir(dir)
	c.dirs[dir] = dirListing{entries, err}
	return entries, err
}

func (c *Config) discoverSkills(dir string, scope Scope, depth int, seen map[string]bool) {
	if depth > 16 || c.knownAbsent(dir) {
		return // absent: no SKILL.md, nothing listed
	}
	if real, err := c.paths.EvalSymlinks(dir); err == nil {
		if seen[real] {
			return
		}
		seen[real] = true
	} else if knownListings && c.dirs != nil && errors.Is(err, fs.ErrNotExist) {
		// A component of dir does not exist (ENOENT, not a loop or a permission): SKILL.md's
		// lstat and the listing below would say ENOENT, which finds nothing and reports nothing.
		return
	}
	skill := filepath.Join(dir, "SKILL.md")
	if _, err := os.Lstat(skill); err == nil {
		c.addOnce(skill, Skill, scope)
		return // a directory with SKILL.md is a skill and is not searched further
	}
	for _, e := range c.listDir(dir, scope) {
		st, err := os.Stat(e)
		if err != nil {
			c.ioProblem(e, scope, err)
			continue
		}
		if st.IsDir() {
			c.discoverSkills(e, scope, depth+1, seen)
		}
	}
}

func (c *Config) ioProblem(path string, scope Scope, err error) {
	f := &File{Path: path, Scope: scope, Broken: true, Src: diag.NewSource(path, nil)}
	f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "io", "", ioMessage(err))
	c.Files = append(c.Files, f)
}

// readOptions is how files of a scope are read (safefile): a project's files must stay inside
// the project, so that a link in a cloned repository cannot show pigo a file from elsewhere.
func (c *Config) readOptions(scope Scope) safefile.Options {
	o := safefile.Options{Max: MaxFileSize, Paths: c.paths}
	if scope == Project {
		if c.projectReal == "" {
			c.projectReal = c.paths.Real(c.ProjectDir)
		}
		o.Within, o.WithinName = c.projectReal, "the project"
	}
	return o
}

func ioMessage(err error) string {
	var r *safefile.Refusal
	if errors.As(err, &r) {
		return r.Reason
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := err.Error()
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "cannot read the file: permission denied"
	case strings.Contains(msg, "too many levels of symbolic links"):
		return "cannot read the file: a symbolic link loop"
	}
	return "cannot read the file: " + msg
}

// addFile reads one file if it exists (or always, when must is set: a missing file is then an
// error). It returns nil when an optional file does not exist.
func (c *Config) addFile(path string, kind Kind, scope Scope, must bool) *File {
	if !must && c.knownAbsent(path) {
		return nil // statFile's errAbsent, without its system call
	}
	err := statFile(path, must)
	if errors.Is(err, errAbsent) {
		return nil // truly absent (a dangling link is reported below)
	}
	f := &File{Path: path, Kind: kind, Scope: scope, Applied: true, Src: diag.NewSource(path, nil)}
	f.Name = resourceName(path, kind)
	c.Files = append(c.Files, f)
	fail := func(msg string) *File {
		f.Broken, f.Applied = true, false
		f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "io", "", msg)
		return f
	}
	if err != nil {
		return fail(ioMessage(err))
	}
	data, err := safefile.Read(path, c.readOptions(scope))
	if err != nil {
		return fail(ioMessage(err))
	}
	f.Src.Text = data
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		f.Broken, f.Applied = true, false
		off := bytes.IndexByte(data, 0)
		if off < 0 {
			off = invalidUTF8(data)
		}
		f.Diags.Add(diag.At(f.Src, off, off+1), diag.Error, "syntax", "", "not a text file: binary or invalid UTF-8 content")
		return f
	}
	switch kind {
	case Agent, Prompt, Skill:
		c.parseMarkdown(f)
	default:
		if filepath.Ext(path) == ".cue" {
			return f // CUE declarations are compiled when checked
		}
		c.parseJSON(f)
	}
	return f
}

// knownListings turns knownAbsent's answers off when false (tests compare both ways).
var knownListings = true

// knownFolder is a folder Load listed (listKnown): its clean path, and either the ASCII names
// of its entries in lower case, or that it does not exist (ENOENT), or unsure (any other
// error, or an entry's name that is not ASCII).
type knownFolder struct {
	dir     string
	names   map[string]bool
	missing bool
	unsure  bool
}

// listKnown lists dir, a folder in which Load then looks for a score of files and folders one
// system call each (the JSON files, their .jsonc twins, bwrap.json, agents, prompts,
// extensions, skills), most of them absent: one listing answers for the absent ones
// (knownAbsent). The listing is c.readDir's, which listDir reuses.
func (c *Config) listKnown(dir string) {
	if !knownListings || c.dirs == nil {
		return
	}
	dir = filepath.Clean(dir)
	if dir == string(filepath.Separator) {
		return
	}
	k := knownFolder{dir: dir}
	entries, err := c.readDir(dir)
	switch {
	case err == nil:
		k.names = make(map[string]bool, len(entries))
		for _, e := range entries {
			name := e.Name()
			if !isASCII(name) {
				k.unsure = true // a case- or normalization-insensitive file system could match it
				break
			}
			k.names[strings.ToLower(name)] = true
		}
	case errors.Is(err, fs.ErrNotExist):
		k.missing = true
	default:
		k.unsure = true // EACCES, ENOTDIR, ELOOP, …: every look-up goes to the file system
	}
	c.known = append(c.known, k)
}

// knownAbsent reports whether path, a clean path under a folder listKnown listed, is known
// not to exist: the folder does not exist, or holds no entry named as path's next component,
// not even one equal to it in ASCII case (a case-insensitive file system would find that one).
// Every other path is not known: the caller asks the file system as before. A file made or
// removed between the listing and the look-up it replaces is the same race as before.
func (c *Config) knownAbsent(path string) bool {
	for i := range c.known {
		k := &c.known[i]
		rest, ok := strings.CutPrefix(path, k.dir)
		if !ok || len(rest) < 2 || rest[0] != filepath.Separator {
			continue
		}
		if k.unsure {
			return false
		}
		if k.missing {
			return true // ENOENT for the folder: ENOENT for anything under it
		}
		name, _, _ := strings.Cut(rest[1:], string(filepath.Separator))
		if name == "" || name == "." || name == ".." || !isASCII(name) {
			return false
		}
		return !k.names[strings.ToLower(name)]
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// errAbsent says an optional file does not exist, not even as a dangling link.
var errAbsent = errors.New("absent")

// statFile is os.Stat's error for path, or errAbsent for an optional file (must false) that
// neither os.Stat nor os.Lstat finds. Most optional files are absent: an Lstat first answers
// for them with one system call instead of os.Stat's and then os.Lstat's, and for a file that
// is not a link (Stat would see the same inode); a link, and any other Lstat error, are
// os.Stat's to judge as before.
func statFile(path string, must bool) error {
	if !must {
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Lstat finds no entry: Stat, which resolves the same parents, finds none either.
			return errAbsent
		case err == nil && fi.Mode()&fs.ModeSymlink == 0:
			return nil
		}
	}
	_, err := os.Stat(path)
	if err != nil && !must && errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr != nil {
			return errAbsent
		}
	}
	return err
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

func resourceName(path string, kind Kind) string {
	switch kind {
	case Skill:
		return filepath.Base(filepath.Dir(path))
	case Agent, Prompt, Extension:
		base := filepath.Base(path)
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	return ""
}

func (c *Config) parseJSON(f *File) {
	if len(bytes.TrimSpace(bytes.TrimPrefix(f.Src.Text, []byte("\uFEFF")))) == 0 {
		f.Root = &jsonc.Node{Kind: jsonc.Object}
		f.Diags.Add(diag.FileSpan(f.Src), diag.Info, "empty-file", "", "the file is empty; it counts as {}")
		return
	}
	n, err := jsonc.Parse(f.Src.Text)
	if err != nil {
		var se *jsonc.SyntaxError
		off := 0
		msg := err.Error()
		if errors.As(err, &se) {
			off, msg = se.Offset, syntaxMessage(se.Msg)
		}
		f.Broken, f.Applied = true, false
		f.Diags.Add(diag.At(f.Src, off, off+1), diag.Error, "syntax", "", msg)
		return
	}
	f.Root = n
}

func (c *Config) parseMarkdown(f *File) {
	doc, err := frontmatter.Parse(f.Src.Text)
	f.Doc = doc
	if err != nil {
		var fe *frontmatter.Error
		off := 0
		if errors.As(err, &fe) {
			off = fe.Offset
		}
		f.Broken, f.Applied = true, false
		f.Diags.Add(diag.At(f.Src, off, off+1), diag.Error, "syntax", "", err.Error())
		return
	}
	for _, w := range doc.Warnings {
		f.Diags.Add(diag.At(f.Src, w.Offset, w.Offset+2), diag.Warning, w.Code, "", w.Msg)
	}
	f.Root = doc.Data
}

// FilesOf returns the loaded files of one kind, global before project.
func (c *Config) FilesOf(k Kind) []*File {
	var out []*File
	for _, f := range c.Files {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// Layer returns the file of a JSON kind in one scope (the current name, not the legacy one),
// or nil.
func (c *Config) Layer(k Kind, s Scope) *File {
	for _, f := range c.Files {
		if f.Kind == k && f.Scope == s && !f.Legacy {
			return f
		}
	}
	return nil
}

// Path returns where a JSON kind lives in a scope, whether or not it exists.
func (c *Config) Path(k Kind, s Scope) string {
	if k == WebSearch {
		return filepath.Join(c.Home, ".pi", "web-search.json")
	}
	if s == Project {
		return filepath.Join(c.ProjectOverlay(), FileName(k))
	}
	return filepath.Join(c.AgentDir, FileName(k))
}

// sortFiles keeps files in discovery order but guarantees global before project before cli.
func (c *Config) sortFiles() {
	rank := map[Scope]int{Builtin: 0, Global: 1, Project: 2, CLI: 3}
	slices.SortStableFunc(c.Files, func(a, b *File) int { return rank[a.Scope] - rank[b.Scope] })
}
