package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/validate"
)

// MCPConfig is the effective mcp.json: the servers a session connects, read as pi 1.6 reads
// them (the agent dir's file, then a trusted project's .pi/mcp.json: a project entry replaces
// a global one of the same name, an entry without command, url or type overrides only enabled,
// exposure and toolExposure). Invalid entries are left out and reported; the others stay.
type MCPConfig struct {
	// Servers are the valid entries in pi's order: global entries in file order, then project
	// entries (a replaced global entry keeps its place). Disabled servers are included.
	Servers []*mcp.Server
	// AutoEnableCodemode is the top-level autoEnableCodemode (project over global); nil is unset.
	AutoEnableCodemode *bool
	AutoEnableAt       *mcp.Position
	// GlobalFile is the agent dir's mcp.json; ProjectFile the project's, "" when it is not read
	// (no project overlay).
	GlobalFile, ProjectFile string
	// Ignored is the project file left out because the project is not trusted ("" otherwise).
	Ignored string
	// Diags are the problems of both files: errors for the entries left out, the widening
	// notices, infos. The same diagnostics are attached to the files for `pigo check`.
	Diags diag.List
}

// Server returns the server named name, or nil.
func (m *MCPConfig) Server(name string) *mcp.Server {
	for _, s := range m.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// AutoCodemode reports whether codemode is activated for servers with codemode exposure.
func (m *MCPConfig) AutoCodemode() bool { return m.AutoEnableCodemode == nil || *m.AutoEnableCodemode }

// mcpOverrideKeys are the keys a project override entry may set.
var mcpOverrideKeys = []string{"enabled", "exposure", "toolExposure"}

// exposureAliases are older exposure names, replaced by their current name.
var exposureAliases = map[string]string{"codemode-deferred": mcp.ExposureCodemode}

// MCP returns the effective mcp.json. Project entries are read only when the project is
// trusted; check still validates them (D5).
func (c *Config) MCP() *MCPConfig {
	if c.mcpCfg != nil {
		return c.mcpCfg
	}
	out := &MCPConfig{GlobalFile: filepath.Join(c.AgentDir, "mcp.json")}
	c.mcpCfg = out
	global, project := c.Layer(MCP, Global), c.Layer(MCP, Project)
	if project != nil {
		out.ProjectFile = project.Path
	} else if !c.sameDir(c.ProjectOverlay(), filepath.Dir(c.AgentDir)) {
		out.ProjectFile = filepath.Join(c.ProjectOverlay(), "mcp.json")
	}
	r := &mcpReader{c: c, out: out, byName: map[string]*mcp.Server{}}
	if global != nil {
		r.read(global, true)
	}
	if project != nil {
		// An untrusted project's file is still validated for check, but nothing of it applies.
		r.read(project, c.Trusted)
		if !c.Trusted {
			out.Ignored = project.Path
		}
	}
	return out
}

type mcpReader struct {
	c      *Config
	out    *MCPConfig
	byName map[string]*mcp.Server
}

// add records a diagnostic on the file (for check) and in the result (for the session).
func (r *mcpReader) add(f *File, apply bool, sp diag.Span, sev diag.Severity, code, path, msg string) *diag.Diagnostic {
	d := f.Diags.Add(sp, sev, code, path, msg)
	if apply {
		r.out.Diags = append(r.out.Diags, *d)
	}
	return d
}

func at(f *File, n *jsonc.Node) diag.Span {
	if n == nil {
		return diag.FileSpan(f.Src)
	}
	return diag.At(f.Src, n.Start, n.End)
}

func keyAt(f *File, m *jsonc.Member) diag.Span { return diag.At(f.Src, m.KeyStart, m.KeyEnd) }

func posOf(f *File, start int) *mcp.Position {
	l, col := f.Src.Position(start)
	return &mcp.Position{File: f.Path, Line: l, Column: col}
}

// read applies one file as pi's readConfigFile does; apply is false for an untrusted project
// (validated, never applied).
func (r *mcpReader) read(f *File, apply bool) {
	r.c.checkFile(nil, f)
	if f.Broken || f.Root == nil || f.Dialect != "" {
		return // reported by the reader or check (and listed by NotApplied)
	}
	root := f.Root
	servers := root.Get("mcpServers")
	if root.Kind != jsonc.Object || (servers != nil && servers.Kind != jsonc.Object) {
		n := root
		if root.Kind == jsonc.Object {
			n = servers
		}
		r.add(f, apply, at(f, n), diag.Error, "mcp-config", "mcpServers", `expected an object with an "mcpServers" object`)
		return
	}
	if v := root.Get("autoEnableCodemode"); v != nil {
		if v.Kind == jsonc.Bool {
			if apply {
				b := v.Bool
				r.out.AutoEnableCodemode, r.out.AutoEnableAt = &b, posOf(f, v.Start)
			}
		} else if !r.hasSchemaError(f, v) {
			r.add(f, apply, at(f, v), diag.Error, "mcp-config", "autoEnableCodemode", "autoEnableCodemode must be a boolean")
		}
	}
	if servers == nil {
		return
	}
	for i := range servers.Members {
		m := &servers.Members[i]
		if dup := lastIndexOfKey(servers, m.Key); dup != i {
			continue // a repeated key keeps its last value, as JSON.parse does (check reports it)
		}
		r.entry(f, apply, m)
	}
}

func lastIndexOfKey(obj *jsonc.Node, key string) int {
	last := -1
	for i, m := range obj.Members {
		if m.Key == key {
			last = i
		}
	}
	return last
}

// hasSchemaError reports whether the schema check already reported an error on n (its
// wording wins over pi's for the same value, so a value is never reported twice).
func (r *mcpReader) hasSchemaError(f *File, n *jsonc.Node) bool {
	for _, d := range f.Diags {
		if d.Severity == diag.Error && d.Code != "mcp-server" && d.Code != "mcp-config" && d.HasPos() && d.Start >= n.Start && d.End <= n.End {
			return true
		}
	}
	return false
}

// isOverride is pi's isMcpServerOverride: an entry without command, url or type.
func isOverride(n *jsonc.Node) bool {
	return n.Kind == jsonc.Object && n.Get("command") == nil && n.Get("url") == nil && n.Get("type") == nil
}

func (r *mcpReader) entry(f *File, apply bool, m *jsonc.Member) {
	name, n := m.Key, m.Value
	path := "mcpServers." + name
	bad := false
	fail := func(node *jsonc.Node, msg string) {
		if node != nil && node != n && r.hasSchemaError(f, node) {
			bad = true
			return
		}
		sp := keyAt(f, m)
		if node != nil {
			sp = at(f, node)
		}
		r.add(f, apply, sp, diag.Error, "mcp-server", path, msg)
		bad = true
	}
	if f.Scope == Project && isOverride(n) {
		base := r.byName[name]
		var extra []string
		for _, mm := range n.Members {
			if !slices.Contains(mcpOverrideKeys, mm.Key) && mm.Key != "$comment" {
				extra = append(extra, mm.Key)
			}
		}
		switch {
		case base == nil:
			fail(nil, fmt.Sprintf(`server %q needs "command" or "url", or a global server to override`, name))
		case len(extra) > 0:
			fail(objMemberNode(n, extra[0]), fmt.Sprintf("server %q: an override can only set %s", name, strings.Join(mcpOverrideKeys, ", ")))
		default:
			r.exposures(f, name, n, fail)
			if v := n.Get("enabled"); v != nil && v.Kind != jsonc.Bool {
				fail(v, fmt.Sprintf("server %q: enabled must be a boolean", name))
			}
			if bad || !apply {
				return
			}
			over := *base
			pos := posOf(f, m.KeyStart)
			over.Override = pos
			r.applyOverride(f, &over, n)
			r.replace(base, &over)
		}
		return
	}
	s := r.validate(f, m, fail)
	if bad || s == nil {
		return
	}
	// Names that differ only in "-" and "_" would share a namespace.
	for _, other := range r.out.Servers {
		if other.Name != name && mcp.Namespace(other.Name) == mcp.Namespace(name) {
			fail(nil, fmt.Sprintf("server %q conflicts with %q", name, other.Name))
			return
		}
	}
	if f.Scope == Project && s.AuthProvider != "" {
		fail(n.Get("auth"), fmt.Sprintf("server %q: auth is only allowed in the global mcp.json", name))
		return
	}
	if s.Sandbox.Widens() && s.Transport == mcp.Stdio {
		r.widening(f, apply, s, n)
	}
	if !apply {
		return
	}
	if old := r.byName[name]; old != nil {
		r.replace(old, s)
		return
	}
	r.byName[name] = s
	r.out.Servers = append(r.out.Servers, s)
}

func objMemberNode(n *jsonc.Node, key string) *jsonc.Node { return n.Get(key) }

// replace puts s in old's place (pi's Map keeps the first insertion position).
func (r *mcpReader) replace(old, s *mcp.Server) {
	i := slices.Index(r.out.Servers, old)
	r.out.Servers[i] = s
	r.byName[s.Name] = s
}

// widening reports a stdio server that runs outside the sandbox or with a wider one.
func (r *mcpReader) widening(f *File, apply bool, s *mcp.Server, n *jsonc.Node) {
	sb := n.Get("sandbox")
	var msg string
	switch {
	case s.Sandbox.Off:
		msg = fmt.Sprintf("MCP server %q runs outside the sandbox (\"sandbox\": false): it can read, write and reach everything you can", s.Name)
	default:
		var parts []string
		if len(s.Sandbox.WritablePaths) > 0 {
			parts = append(parts, "it may also write "+strings.Join(quoteAll(s.Sandbox.WritablePaths), ", "))
		}
		if s.Sandbox.Network != "" {
			parts = append(parts, fmt.Sprintf("its network is %q", s.Sandbox.Network))
		}
		msg = fmt.Sprintf("MCP server %q widens the sandbox of sandbox.json: %s", s.Name, strings.Join(parts, "; "))
	}
	d := r.add(f, apply, at(f, sb), diag.Warning, "sandbox-widened", "mcpServers."+s.Name+".sandbox", msg)
	d.Hint = "stdio servers run inside the bwrap sandbox by default; keep this only if the server needs it"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// applyOverride sets enabled, exposure and toolExposure of a project override on s.
func (r *mcpReader) applyOverride(f *File, s *mcp.Server, n *jsonc.Node) {
	if v := n.Get("enabled"); v != nil && v.Kind == jsonc.Bool {
		s.Enabled, s.EnabledAt = v.Bool, posOf(f, v.Start)
	}
	if v := n.Get("exposure"); v != nil && v.Kind == jsonc.String {
		s.Exposure, s.ExposureAt = resolveExposure(v.Str), posOf(f, v.Start)
	}
	if v := n.Get("toolExposure"); v != nil && v.Kind == jsonc.Object {
		s.ToolExposure, s.ToolExposureOrder, s.ToolExposureAt = toolExposures(f, v)
	}
}

func resolveExposure(e string) string {
	if a, ok := exposureAliases[e]; ok {
		return a
	}
	return e
}

func toolExposures(f *File, v *jsonc.Node) (map[string]string, []string, map[string]mcp.Position) {
	out := map[string]string{}
	at := map[string]mcp.Position{}
	var order []string
	for _, m := range v.Members {
		if m.Value.Kind != jsonc.String {
			continue
		}
		if _, seen := out[m.Key]; !seen {
			order = append(order, m.Key)
		}
		out[m.Key] = resolveExposure(m.Value.Str)
		at[m.Key] = *posOf(f, m.Value.Start)
	}
	return out, order, at
}

// exposures checks exposure and toolExposure (pi's checkExposures, aliases resolved first).
func (r *mcpReader) exposures(f *File, name string, n *jsonc.Node, fail func(*jsonc.Node, string)) {
	valid := func(v *jsonc.Node) bool {
		return v.Kind == jsonc.String && slices.Contains(mcp.Exposures, resolveExposure(v.Str))
	}
	list := `"codemode", "deferred", "direct", "hidden"`
	if v := n.Get("exposure"); v != nil && !valid(v) {
		fail(v, fmt.Sprintf("server %q: exposure must be one of %s", name, list))
	}
	if v := n.Get("toolExposure"); v != nil {
		if v.Kind != jsonc.Object {
			fail(v, fmt.Sprintf("server %q: toolExposure must map tool names to exposures", name))
			return
		}
		for _, m := range v.Members {
			if !valid(m.Value) {
				fail(m.Value, fmt.Sprintf("server %q: toolExposure %q must be one of %s", name, m.Key, list))
			}
		}
	}
}

var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]"}

// hostOf is the URL's host as JavaScript's URL.hostname gives it (IPv6 in brackets).
func hostOf(u *url.URL) string {
	h := u.Hostname()
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return strings.ToLower(h)
}

// validate is pi's validateMcpServerConfig plus pigo's sandbox field: the entry as an
// mcp.Server, or nil after fail was called.
func (r *mcpReader) validate(f *File, m *jsonc.Member, fail func(*jsonc.Node, string)) *mcp.Server {
	name, n := m.Key, m.Value
	q := strconv.Quote(name)
	if !mcp.ValidServerName(name) {
		fail(nil, fmt.Sprintf(`invalid server name %s (use letters, digits, "_" and "-")`, q))
		return nil
	}
	if n.Kind != jsonc.Object {
		fail(n, fmt.Sprintf("server %s must be an object", q))
		return nil
	}
	failed := false
	bad := func(node *jsonc.Node, msg string) {
		failed = true
		fail(node, fmt.Sprintf("server %s: %s", q, msg))
	}
	s := &mcp.Server{Name: name, Enabled: true, Scope: string(f.Scope), Source: *posOf(f, m.KeyStart)}
	if f.Scope != Project {
		s.Scope = string(Global)
	}
	if v := n.Get("enabled"); v != nil {
		if v.Kind != jsonc.Bool {
			bad(v, "enabled must be a boolean")
		} else {
			s.Enabled, s.EnabledAt = v.Bool, posOf(f, v.Start)
		}
	}
	if v := n.Get("description"); v != nil {
		if v.Kind != jsonc.String {
			bad(v, "description must be a string")
		} else {
			s.Description = v.Str
		}
	}
	if v := n.Get("timeout"); v != nil {
		t, err := strconv.ParseFloat(v.Num, 64)
		if v.Kind != jsonc.Number || err != nil || !(t > 0) || math.IsInf(t, 0) {
			bad(v, "timeout must be a positive number of seconds")
		} else {
			s.Timeout = t
		}
	}
	typ := n.Get("type")
	typStr := ""
	if typ != nil && typ.Kind == jsonc.String {
		typStr = typ.Str
	}
	urlN, cmdN := n.Get("url"), n.Get("command")
	switch {
	case typ != nil && typ.Kind == jsonc.String && typ.Str == "sse":
		fail(typ, fmt.Sprintf("server %s: legacy SSE transport is not supported; use the streamable HTTP URL", q))
		return nil
	case urlN != nil && urlN.Kind == jsonc.String && (typ == nil || typStr == "http" || typStr == "streamable-http"):
		s.Transport, s.URL = mcp.HTTP, urlN.Str
		u, err := url.Parse(urlN.Str)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad(urlN, "url must be an http or https URL")
		}
		if h := n.Get("headers"); h != nil {
			if m, ok := stringMap(h); ok {
				s.Headers = m
			} else {
				bad(h, "headers must map names to strings")
			}
		}
		if o := n.Get("oauth"); o != nil {
			s.OAuth = r.oauth(o, bad)
		}
		if a := n.Get("auth"); a != nil {
			p := a.Get("provider")
			switch {
			case a.Kind != jsonc.Object || p == nil || p.Kind != jsonc.String || p.Str == "":
				bad(a, "auth.provider must be a provider name")
			case err == nil && u.Scheme != "https" && !slices.Contains(loopbackHosts, hostOf(u)):
				bad(a, "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]")
			default:
				s.AuthProvider = p.Str
			}
		}
	case cmdN != nil && cmdN.Kind == jsonc.String && (typ == nil || typStr == "stdio"):
		s.Transport, s.Command = mcp.Stdio, cmdN.Str
		if a := n.Get("args"); a != nil {
			if list, ok := stringList(a); ok {
				s.Args = list
			} else {
				bad(a, "args must be an array of strings")
			}
		}
		if e := n.Get("env"); e != nil {
			if m, ok := stringMap(e); ok {
				s.Env = m
			} else {
				bad(e, "env must map names to strings")
			}
		}
		if c := n.Get("cwd"); c != nil {
			if c.Kind != jsonc.String {
				bad(c, "cwd must be a string")
			} else {
				s.Cwd = c.Str
			}
		}
		if strings.TrimSpace(s.Command) == "" {
			bad(cmdN, "command must name an executable")
		} else if strings.ContainsAny(s.Command, " \t") && len(s.Args) == 0 && !strings.ContainsAny(s.Command, "/\\") {
			w := r.add(f, false, at(f, cmdN), diag.Warning, "mcp-command", "mcpServers."+name+".command",
				fmt.Sprintf("server %s: command %s is one executable, not a shell line", q, strconv.Quote(s.Command)))
			fields := strings.Fields(s.Command)
			w.Hint = fmt.Sprintf(`write "command": %s, "args": [%s]`, strconv.Quote(fields[0]), strings.Join(quoteAll(fields[1:]), ", "))
		}
	default:
		fail(nil, fmt.Sprintf(`server %s needs either "command" (stdio) or "url" (streamable HTTP)`, q))
		return nil
	}
	r.exposures(f, name, n, fail)
	if v := n.Get("exposure"); v != nil && v.Kind == jsonc.String {
		s.Exposure, s.ExposureAt = resolveExposure(v.Str), posOf(f, v.Start)
	}
	if v := n.Get("toolExposure"); v != nil && v.Kind == jsonc.Object {
		s.ToolExposure, s.ToolExposureOrder, s.ToolExposureAt = toolExposures(f, v)
	}
	if sb := n.Get("sandbox"); sb != nil {
		s.Sandbox.At = posOf(f, sb.Start)
		switch sb.Kind {
		case jsonc.Bool:
			s.Sandbox.Off = !sb.Bool
		case jsonc.Object:
			if w := sb.Get("writablePaths"); w != nil {
				if list, ok := stringList(w); ok {
					s.Sandbox.WritablePaths = list
				} else {
					bad(w, "sandbox.writablePaths must be an array of strings")
				}
			}
			if nw := sb.Get("network"); nw != nil {
				if nw.Kind == jsonc.String && slices.Contains([]string{"block", "limited", "allow-all"}, nw.Str) {
					s.Sandbox.Network = nw.Str
				} else {
					bad(nw, `sandbox.network must be one of "block", "limited", "allow-all"`)
				}
			}
		default:
			bad(sb, "sandbox must be false or an object")
		}
		if s.Transport == mcp.HTTP && !failed {
			r.add(f, false, at(f, sb), diag.Info, "mcp-sandbox-http", "mcpServers."+name+".sandbox",
				fmt.Sprintf("server %s: sandbox applies to stdio servers only; an HTTP server runs elsewhere", q))
		}
	}
	if failed {
		return nil
	}
	return s
}

// oauth is pi's validateOAuth.
func (r *mcpReader) oauth(o *jsonc.Node, bad func(*jsonc.Node, string)) *mcp.OAuth {
	if o.Kind != jsonc.Object {
		bad(o, "oauth must be an object")
		return nil
	}
	out := &mcp.OAuth{}
	str := func(key string, dst *string, msg string) bool {
		v := o.Get(key)
		if v == nil {
			return true
		}
		if v.Kind != jsonc.String {
			bad(v, msg)
			return false
		}
		*dst = v.Str
		return true
	}
	if !str("clientId", &out.ClientID, "oauth.clientId must be a string") ||
		!str("clientSecret", &out.ClientSecret, "oauth.clientSecret must be a string") {
		return nil
	}
	if v := o.Get("callbackPort"); v != nil {
		p, err := strconv.Atoi(v.Num)
		if v.Kind != jsonc.Number || err != nil || p < 1 || p > 65535 {
			bad(v, "oauth.callbackPort must be a port number")
			return nil
		}
		out.CallbackPort = p
	}
	if v := o.Get("callbackUrl"); v != nil {
		u, err := url.Parse(v.Str)
		if v.Kind != jsonc.String || err != nil || u.Scheme != "http" || !slices.Contains(loopbackHosts, hostOf(u)) || u.RawQuery != "" || u.Fragment != "" || strings.Contains(v.Str, "?") || strings.Contains(v.Str, "#") {
			bad(v, "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment")
			return nil
		}
		if port := u.Port(); port != "" && out.CallbackPort != 0 && port != strconv.Itoa(out.CallbackPort) {
			bad(v, "oauth.callbackUrl and oauth.callbackPort name different ports")
			return nil
		}
		out.CallbackURL = v.Str
	}
	if !str("scope", &out.Scope, "oauth.scope must be a string") {
		return nil
	}
	if v := o.Get("clientName"); v != nil {
		if v.Kind != jsonc.String || strings.TrimSpace(v.Str) == "" {
			bad(v, "oauth.clientName must be a non-empty string")
			return nil
		}
		out.ClientName = v.Str
	}
	if v := o.Get("clientRegistration"); v != nil {
		switch {
		case v.Kind != jsonc.String || !slices.Contains([]string{"auto", "dcr", "cimd"}, v.Str):
			bad(v, `oauth.clientRegistration must be "auto", "dcr", or "cimd"`)
			return nil
		case v.Str == "cimd" && (out.ClientID != "" || out.ClientName != ""):
			bad(v, `oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName`)
			return nil
		case v.Str == "cimd":
			// pi's Client ID Metadata Documents are pi's own (on pi.dev): pigo has none, so it
			// cannot identify itself with one.
			bad(v, `oauth.clientRegistration "cimd" is not supported: there are no Client ID Metadata Documents`)
			return nil
		}
		out.ClientRegistration = v.Str
	}
	if v := o.Get("authServerMetadataUrl"); v != nil {
		u, err := url.Parse(v.Str)
		if v.Kind != jsonc.String || err != nil || u.Host == "" || !(u.Scheme == "https" || u.Scheme == "http" && slices.Contains(loopbackHosts, hostOf(u))) {
			bad(v, "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]")
			return nil
		}
		out.AuthServerMetadataURL = v.Str
	}
	return out
}

func stringList(n *jsonc.Node) ([]string, bool) {
	if n.Kind != jsonc.Array {
		return nil, false
	}
	out := make([]string, 0, len(n.Elems))
	for _, e := range n.Elems {
		if e.Kind != jsonc.String {
			return nil, false
		}
		out = append(out, e.Str)
	}
	return out, true
}

func stringMap(n *jsonc.Node) (map[string]string, bool) {
	if n.Kind != jsonc.Object {
		return nil, false
	}
	out := map[string]string{}
	for _, m := range n.Members {
		if m.Value.Kind != jsonc.String {
			return nil, false
		}
		out[m.Key] = m.Value.Str
	}
	return out, true
}

// ValidateMCPEntry checks one server entry as `pigo mcp add` writes it (pi's
// validateMcpServerConfig) and returns pi's message for its first problem, "" when it is valid.
func ValidateMCPEntry(name string, entry []byte) string {
	root, err := jsonc.Parse(entry)
	if err != nil {
		return err.Error()
	}
	f := &File{Path: "(mcp add)", Kind: MCP, Scope: Global, Src: diag.NewSource("(mcp add)", entry), Root: root}
	r := &mcpReader{c: &Config{}, out: &MCPConfig{}, byName: map[string]*mcp.Server{}}
	first := ""
	m := &jsonc.Member{Key: name, Value: root}
	fail := func(_ *jsonc.Node, msg string) {
		if first == "" {
			first = msg
		}
	}
	if s := r.validate(f, m, fail); s != nil && first == "" {
		r.exposures(f, name, root, fail)
	}
	return first
}

// MCPDefines reports whether the mcp.json of scope has an entry named name.
func (c *Config) MCPDefines(s Scope, name string) bool {
	f := c.Layer(MCP, s)
	if f == nil || f.Root == nil {
		return false
	}
	servers := f.Root.Get("mcpServers")
	return servers != nil && servers.Get(name) != nil
}

// ResolveMCPValue resolves an mcp.json env or header value as pi's resolveConfigValueOrThrow
// does; what names the value in the error.
func ResolveMCPValue(v, what string) (string, error) {
	r, ok, missing := ResolveConfigValue(v)
	if ok {
		return r, nil
	}
	switch {
	case strings.HasPrefix(v, "!"):
		return "", fmt.Errorf("Failed to resolve %s from shell command: %s", what, v[1:])
	case len(missing) == 1:
		return "", fmt.Errorf("Failed to resolve %s from environment variable: %s", what, missing[0])
	case len(missing) > 1:
		return "", fmt.Errorf("Failed to resolve %s from environment variables: %s", what, strings.Join(missing, ", "))
	}
	return "", fmt.Errorf("Failed to resolve %s", what)
}

// SaveMCPChange writes /mcp's change of server s (enabled when set, else the exposure) to the
// file a change is saved to (pi's saveConfig): its project override, the file that defines
// it, or (project) a new project override; comments are kept and the whole stack is validated
// first. It returns the file.
func (c *Config) SaveMCPChange(s *mcp.Server, enabled *bool, exposure string, project bool) (string, error) {
	if project && !c.ProjectTrustedQuietly() {
		return "", errors.New("The project is not trusted: its .pi/mcp.json is not read.")
	}
	scope := Global
	if project || s.Override != nil || s.Scope == string(Project) {
		scope = Project
	}
	entry := "mcpServers." + mcp.PathKey(s.Name)
	var ops []EditOp
	switch {
	case enabled != nil:
		override := scope == Project && s.Scope != string(Project)
		if *enabled && !override {
			if c.MCPDefines(scope, s.Name) && s.EnabledAt != nil {
				ops = append(ops, EditOp{Op: OpUnset, Path: entry + ".enabled"})
			}
		} else {
			ops = append(ops, EditOp{Op: OpSet, Path: entry + ".enabled", Value: []byte(fmt.Sprint(*enabled))})
		}
	case exposure != "":
		if exposure == mcp.ExposureCodemode && s.Override == nil {
			if s.ExposureAt != nil {
				ops = append(ops, EditOp{Op: OpUnset, Path: entry + ".exposure"})
			}
		} else {
			ops = append(ops, EditOp{Op: OpSet, Path: entry + ".exposure", Value: []byte(`"` + exposure + `"`)})
		}
	}
	if len(ops) > 0 {
		if _, err := c.Apply(MCP, scope, false, ops...); err != nil {
			return "", err
		}
	}
	return c.Path(MCP, scope), nil
}

// OAuthServer is the server `pigo mcp login|logout NAME` (cmd) signs in to or out of: one
// that uses OAuth, in the project's file when local. The error is what to print.
func (c *Config) OAuthServer(name string, local bool, cmd string) (*mcp.Server, error) {
	conf := c.MCP()
	s := conf.Server(name)
	if s == nil {
		var names []string
		for _, x := range conf.Servers {
			names = append(names, x.Name)
		}
		msg := fmt.Sprintf("No MCP server named %q.", name)
		if sug := validate.Suggest(name, names); sug != "" {
			msg += fmt.Sprintf(" Did you mean %q?", sug)
		}
		if conf.Ignored != "" {
			msg += fmt.Sprintf(" %s is ignored because the project is not trusted.", conf.Ignored)
		}
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("%s Configured: %s.", msg, list)
	}
	switch {
	case local && s.Scope != string(Project):
		return nil, fmt.Errorf("MCP server %q is defined in %s, not in the project; omit --local.", name, s.Source.File)
	case s.AuthProvider != "":
		return nil, fmt.Errorf("MCP server %q uses the credentials of provider %q. Run \"pigo auth %s %s\".", name, s.AuthProvider, cmd, s.AuthProvider)
	case !s.UsesOAuth():
		return nil, fmt.Errorf("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", name)
	}
	return s, nil
}

// ProjectTrustedQuietly is ProjectTrusted without asking: the question belongs to the start of
// a command, not to the middle of a chat (whose terminal it would take over).
func (c *Config) ProjectTrustedQuietly() bool {
	cp := *c
	cp.Opts.AskTrust = nil
	return cp.ProjectTrusted()
}
