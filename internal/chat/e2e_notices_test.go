package chat

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quietToolsets disables the aft and GitHub tools in the e2e chats' settings, so a machine
// without aft or gh starts them without those toolsets' session-start notices.
const quietToolsets = `"personalExtensions": {"disabledTools": ["aft_*", "*-github-*"]}`

// The toolsets' session-start notices reach the chat as the seed's extensions notify them at
// session_start: gh missing is an error, the aft binary missing a warning naming where it was
// looked for. With the toolsets disabled (quietToolsets) nothing is said.
func TestE2EStartNotices(t *testing.T) {
	if gh, err := exec.LookPath("gh"); err == nil {
		t.Skipf("gh is installed (%s): the missing-gh notice cannot be shown here", gh)
	}
	for _, p := range []string{"/usr/bin/gh", "/usr/local/bin/gh"} {
		if _, err := os.Stat(p); err == nil {
			t.Skipf("gh is installed (%s): the missing-gh notice cannot be shown here", p)
		}
	}
	settings := `{"defaultProvider": "local", "defaultModel": "m", "retry": {"enabled": false}}`
	tm := startTerm(t, 200, 40, termCfg{settings: settings}, textTurn("ok"))
	s := tm.waitFor("(auto)", "error: gh CLI not found in PATH: GitHub read-only tools are disabled.",
		"warning: aft: the aft binary was not found (looked in "+filepath.Join(tm.home, ".cache", "aft", "bin"))
	if strings.Index(s, "error: gh CLI") > strings.Index(s, "warning: aft:") {
		t.Errorf("the notices are not in the toolsets' order (gh, then aft):\n%s", s)
	}
	tm.typeLine("/quit")
	tm.waitFor("EXIT=0")

	quiet := newTerm(t, 200, 40, textTurn("ok"))
	s = quiet.ready()
	if strings.Contains(s, "gh CLI") || strings.Contains(s, "aft:") {
		t.Errorf("disabled toolsets still gave their notices:\n%s", s)
	}
}
