package sandbox

// Filesystem modes of [Policy.FSMode].
const (
	FSReadonly       = "readonly"
	FSWorkspaceWrite = "workspace-write"
	FSAllowAll       = "allow-all"
)

// Network modes of [Policy.NetMode].
const (
	NetBlock    = "block"
	NetLimited  = "limited"
	NetAllowAll = "allow-all"
)

// Policy is the effective sandbox policy, merged by the caller from the defaults, the global
// sandbox.json and a trusted project's .pi/sandbox.json. Paths are as written in the files.
type Policy struct {
	FSMode             string   // "readonly" | "workspace-write" | "allow-all"
	WritablePaths      []string // as written in the file (default [".", "/tmp"])
	ExtraWritablePaths []string
	DenyPaths          []string // trailing "/" = directory
	NetMode            string   // "block" | "limited" | "allow-all"
	Allowlist          []string
	AllowUnixSockets   []string // network.allowUnixSockets: sockets reachable in block and limited modes
	MihomoPath         string
	Slirp4netnsPath    string
	BwrapPath          string
	ExtraArgs          []string
	ApprovalRules      []Rule
	// FSModeOrigin and NetModeOrigin say where the modes were written (zero: the defaults);
	// [Plan.OffNotice] names them.
	FSModeOrigin, NetModeOrigin Origin
	// AgentDir is pigo's agent dir (global sandbox.json, settings, trust.json): never writable
	// from inside. "" leaves it to the other protections.
	AgentDir string
}

// Rule is one approvalRules entry.
type Rule struct {
	Action  string `json:"action"`  // "allow" | "deny"
	Pattern string `json:"pattern"` // glob over a command's raw text
	Origin  Origin `json:"origin"`
}

// Origin says where a rule was written; the zero value means unknown.
type Origin struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// DefaultPolicy returns the reference defaults: workspace-write with "." and "/tmp" writable,
// network blocked, nothing denied, no rules.
func DefaultPolicy() Policy {
	return Policy{
		FSMode:             FSWorkspaceWrite,
		WritablePaths:      []string{".", "/tmp"},
		ExtraWritablePaths: []string{},
		DenyPaths:          []string{},
		NetMode:            NetBlock,
		Allowlist:          []string{},
		ExtraArgs:          []string{},
	}
}

// Sandboxed reports whether commands under p run inside bwrap: everything except the
// combination of an allow-all filesystem and an allow-all network.
func (p Policy) Sandboxed() bool {
	return !(p.FSMode == FSAllowAll && p.NetMode == NetAllowAll)
}
