package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// TestEditRace: 24 writers edit one commented file at once through the full path (load, lock,
// re-read, validate, compare-and-swap write), some appending to one array and some setting
// their own key. Every edit that reports success is in the file afterwards, and the comments
// survive (issue 11 item 6: two concurrent `pigo config set` used to lose one edit).
func TestEditRace(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".pi", "agent", "settings.json")
	write(t, path, "{\n  // models to cycle\n  \"enabledModels\": [\"first\"],\n  \"talk\": {},\n}\n")
	const writers = 24
	var wg sync.WaitGroup
	ok := make([]bool, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			c := load(t, home, t.TempDir(), nil)
			op := EditOp{OpAdd, "enabledModels", fmt.Appendf(nil, `"m%d"`, i)}
			if i%3 == 0 {
				op = EditOp{OpSet, "theme", fmt.Appendf(nil, `"s%d"`, i)}
			}
			_, errs[i] = c.Apply(Settings, Global, false, op)
			ok[i] = errs[i] == nil
		})
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		EnabledModels []string `json:"enabledModels"`
		SessionName   string   `json:"theme"`
	}
	root, err := jsonc.Parse(data)
	if err != nil {
		t.Fatalf("the file does not parse after the race: %v\n%s", err, data)
	}
	if err := json.Unmarshal(root.JSON(), &got); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range writers {
		if !ok[i] {
			t.Errorf("writer %d failed: %v", i, errs[i])
			continue
		}
		n++
		if i%3 == 0 {
			continue // theme: the last writer wins, checked below
		}
		if !strings.Contains(string(data), fmt.Sprintf(`"m%d"`, i)) {
			t.Errorf("the edit of writer %d (exit 0) is lost:\n%s", i, data)
		}
	}
	if !strings.HasPrefix(got.SessionName, "s") || len(got.EnabledModels) != 1+writers-writers/3 {
		t.Errorf("theme %q, %d models:\n%s", got.SessionName, len(got.EnabledModels), data)
	}
	if !strings.Contains(string(data), "// models to cycle") {
		t.Errorf("the comment was lost:\n%s", data)
	}
	t.Logf("%d/%d writers succeeded", n, writers)
}
