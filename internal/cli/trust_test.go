package cli

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
		cli := &CLI{Stdin: strings.NewReader(c.in), Stdout: &bytes.Buffer{}, Stderr: &errOut}
		trusted, remember := cli.askTrust("/work/proj")
		if trusted != c.trusted || remember != c.remember {
			t.Errorf("answer %q: trusted=%v remember=%v, want %v %v", c.in, trusted, remember, c.trusted, c.remember)
		}
		if !strings.Contains(errOut.String(), "Trust project folder?\n/work/proj\n") {
			t.Errorf("question not asked on stderr: %q", errOut.String())
		}
	}
}

// A key that is not an answer asks again; the answer is the first valid key, and a second
// question about the same folder in one command line is not asked.
func TestAskTrustWrongKeyAsksAgain(t *testing.T) {
	var errOut bytes.Buffer
	cli := &CLI{Stdin: strings.NewReader("xo"), Stdout: &bytes.Buffer{}, Stderr: &errOut}
	trusted, remember := cli.askTrust("/work/proj")
	if !trusted || remember {
		t.Fatalf("trusted=%v remember=%v, want true false", trusted, remember)
	}
	if !strings.Contains(errOut.String(), `'x' is not an answer; press t, o, n or d.`) {
		t.Errorf("no second question: %q", errOut.String())
	}
	errOut.Reset()
	if tr, _ := cli.askTrust("/work/proj"); !tr || errOut.Len() != 0 {
		t.Errorf("asked twice in one command line: %q", errOut.String())
	}
}
