package config

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/diag"
)

// TestKnownRefAsIndexed: ModelRefDiags answers a --model it finds listed (knownRef) as the
// index does, for references to models.json's providers and models in other cases, the
// catalogue's, thinking levels, unknown and near-miss providers and ids, and malformed ones.
func TestKnownRefAsIndexed(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "models.json"), `{"providers": {
		"session": {"baseUrl": "http://x/v1", "api": "openai-completions", "models": [{"id": "m"}, {"id": "Big-Model"}, {"id": ""}, {"id": 3}, {}]},
		"Session": {"models": [{"id": "other"}]},
		"openai": {"models": [{"id": "my-gpt"}]},
		"nomodels": {"models": {"id": "x"}},
		"weird": 4}}`)
	write(t, filepath.Join(proj, ".pi", "models.json"), `{"providers": {"proj": {"models": [{"id": "p1"}]}}}`)
	c := load(t, home, proj, nil)
	refs := []string{"session/m", "SESSION/M", "session/big-model", "session/other", "Session/m", "session/nope",
		"session/", "/m", "m", "", "session/m:high", "session/m:bogus", "openai/my-gpt", "openai/gpt-4o", "OpenAI/GPT-4O",
		"opnai/gpt-4o", "nomodels/x", "weird/x", "proj/p1", "proj/p2", "a/b/c", "openrouter/anthropic/claude-sonnet-4",
		"anthropic/claude-sonnet-4-5", "zai/glm-4.6", "zai/glm-4.6:low", "xhigh", "session/m/extra"}
	builtin := builtinModels()
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		row := &builtin[r.IntN(len(builtin))]
		p, id := row.provider.str(), row.id.str()
		switch r.IntN(5) {
		case 0:
			p = strings.ToUpper(p)
		case 1:
			id = strings.ToUpper(id)
		case 2:
			id += "x"
		case 3:
			p = builtin[r.IntN(len(builtin))].provider.str()
		}
		refs = append(refs, p+"/"+id, p+"/"+id+":medium")
	}
	for _, ref := range refs {
		got, want := show(c.ModelRefDiags("--model", ref)), show(c.modelRefDiags("--model", ref))
		if got != want {
			t.Errorf("%q: got %v, the index gives %v", ref, got, want)
		}
	}
	// A listed reference builds no index.
	for _, ref := range []string{"session/m", "SESSION/big-model:high", "proj/p1", "openai/gpt-4o"} {
		c := load(t, home, proj, nil)
		if d := c.ModelRefDiags("--model", ref); d != nil || c.models != nil {
			t.Errorf("%q: %v, index built %v; want nothing and no index", ref, d, c.models != nil)
		}
	}
}

// show is a list's findings as text: file, position, severity, code, message, path and hint.
func show(l diag.List) string {
	var b strings.Builder
	for _, d := range l {
		line, col := d.Pos()
		fmt.Fprintf(&b, "%s:%d:%d %v %s %q %s %q\n", d.File(), line, col, d.Severity, d.Code, d.Message, d.Path, d.Hint)
	}
	return b.String()
}
