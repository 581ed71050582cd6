package safefile

import (
	"os"
	"sync"
)

// secrets are the credential stores no file tool reads (auth.json, mcp-auth.json): the model
// asking to read one would put API keys and tokens into its context, the session file and the
// provider's request (D24). Kept by path and compared by file identity at each open, so a link,
// a hard link or another spelling of the path is refused too, and a store created after the
// session started (a sign-in) is covered. The set only grows: a process serving two sessions
// refuses both agent dirs' stores.
var secrets struct {
	sync.RWMutex
	paths map[string]bool
}

// DenyReads adds files [OpenRegular] and [ReadRegular] refuse to open for a tool.
func DenyReads(paths ...string) {
	secrets.Lock()
	defer secrets.Unlock()
	if secrets.paths == nil {
		secrets.paths = map[string]bool{}
	}
	for _, p := range paths {
		if p != "" {
			secrets.paths[p] = true
		}
	}
}

// secretRefusal is a *Refusal when the opened file (path, whose descriptor's info is fi) is one
// of the credential stores.
func secretRefusal(path string, fi os.FileInfo) error {
	secrets.RLock()
	defer secrets.RUnlock()
	for p := range secrets.paths {
		if st, err := os.Stat(p); err == nil && os.SameFile(st, fi) {
			return CredentialRefusal(path)
		}
	}
	return nil
}

// CredentialRefusal is the refusal of a credential store named path.
func CredentialRefusal(path string) *Refusal {
	return &Refusal{Path: path, Reason: "is a credential store (API keys and tokens); pigo's file tools do not read it"}
}
