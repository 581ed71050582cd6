package config

import (
	"bytes"
	"strings"
	"testing"
)

func TestAskTrustAnswers(t *testing.T) {
	cases := []struct {
		in                string
		trusted, remember bool
	}{
		{"t\n", true, true},
		{"yes\n", true, true},
		{"o\n", true, false},
		{"d\n", false, true},
		{"n\n", false, false},
		{"\n", false, false},
		{"", false, false}, // end of input: the safe answer
	}
	for _, c := range cases {
		var errOut bytes.Buffer
		trusted, remember := AskTrustTerminal(strings.NewReader(c.in), &errOut, "/work/proj")
		if trusted != c.trusted || remember != c.remember {
			t.Errorf("answer %q: trusted=%v remember=%v, want %v %v", c.in, trusted, remember, c.trusted, c.remember)
		}
		if !strings.Contains(errOut.String(), "Trust project folder?\n/work/proj\n") {
			t.Errorf("question not asked on stderr: %q", errOut.String())
		}
	}
}
