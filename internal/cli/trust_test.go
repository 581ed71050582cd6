package cli

import (
	"bytes"
	"strings"
	"testing"
)

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
