package llmtest

import (
	"strings"
	"testing"
)

func TestRunPi(t *testing.T) {
	s := New(t)
	s.Push(Turn{Text: "Hello from the script."})
	out, errOut, _ := s.RunPi(t, PiRun{Args: []string{"--no-session", "-p", "hi"}})
	if !strings.Contains(out, "Hello from the script.") {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	if r := s.Requests(); len(r) != 1 || r[0].API != OpenAICompletions {
		t.Errorf("requests %+v", r)
	}
}
