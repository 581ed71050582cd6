package main

import (
	"strings"
	"testing"
)

// The README's first command must keep working: the scripted session really edits the copy
// of examples/project and leaves a session behind.
func TestDemo(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no user config: the embedded defaults
	var out strings.Builder
	if code := demo(&out, "../.."); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	for _, want := range []string{
		"Done: main.go now prints \"hello, pigo\".",
		`func main() { fmt.Println("hello, pigo") }`,
		"make main.go greet pigo",
		"The model made 3 requests",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}
