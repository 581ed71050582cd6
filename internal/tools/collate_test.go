package tools

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
	pitools "github.com/pigo-agent/pigo/internal/tools/pi"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// TestLsOrderAgainstNode sorts names as pi's ls does (lower-cased localeCompare, ICU root
// collation in node) and compares with pigo's approximation.
func TestLsOrderAgainstNode(t *testing.T) {
	pi := pitest.Find(t)
	names := []string{"a.go", "a_b", "a-b", "ab", "a b", "A1", "a10", "a2", "éa", "eb", "ea", "Zeta.txt", "_under.txt",
		".hidden", "..dots", "README.md", "readme.txt", "go.mod", "go.sum", "Makefile", "main.go", "main_test.go",
		"1file", "~tilde", "#hash", "$dollar", "@at", "+plus", "=eq", "é", "E", "ñ", "n", "z", "日本", "ß", "ss", "[x]", "(y)", "æb", "aeb", "œuf", "oeuf", "ø", "o", "p"}
	b, _ := json.Marshal(names)
	out, err := exec.Command(pi.Node, "-e", `const l=JSON.parse(process.argv[1]);l.sort((a,b)=>a.toLowerCase().localeCompare(b.toLowerCase()));console.log(JSON.stringify(l))`, string(b)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	json.Unmarshal(out, &want)
	got := append([]string{}, names...)
	sort.SliceStable(got, func(i, j int) bool { return pitools.LocaleLess(got[i], got[j]) })
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
}

// TestDecodeUTF8AgainstNode: invalid UTF-8 becomes U+FFFD exactly where Node's
// buffer.toString("utf-8") puts them (pi's read and grep decode files that way).
func TestDecodeUTF8AgainstNode(t *testing.T) {
	pi := pitest.Find(t)
	inputs := []string{"caf\xe9", "\xe2\x82", "\xe2\x82a", "\xf0\x9f\x98", "\xf0\x9f\x98\x80x", "\xed\xa0\x80", "\xc0\xaf", "\xff\xfe\xfd",
		"\xe0\x80\x80", "\xf4\x90\x80\x80", "a\x80b", "\xef\xbb\xbfbom", "\xc2", "ok ünïcödé"}
	var hexes []string
	for _, in := range inputs {
		hexes = append(hexes, fmt.Sprintf("%x", in))
	}
	b, _ := json.Marshal(hexes)
	out, err := exec.Command(pi.Node, "-e", `console.log(JSON.stringify(JSON.parse(process.argv[1]).map(h=>Buffer.from(h,"hex").toString("utf-8"))))`, string(b)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	json.Unmarshal(out, &want)
	for i, in := range inputs {
		if got := toolkit.DecodeUTF8([]byte(in)); got != want[i] {
			t.Errorf("%q: got %q, node %q", in, got, want[i])
		}
	}
}
