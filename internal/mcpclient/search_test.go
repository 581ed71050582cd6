package mcpclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	got := Tokenize("getIssueComments for the HTTPServer's issues, día 2")
	want := []string{"get", "issue", "comment", "http", "server", "s", "issue", "día", "2"} // pi's own output
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestRank: a query that is a tool's name ranks it first; tools covering more query terms rank
// above tools that match fewer, whatever their scores; a name match beats description mentions.
func TestRank(t *testing.T) {
	docs := []SearchDoc{
		NewSearchDoc("mcp__gh__list_issues", "List issues of a repository", json.RawMessage(`{"properties":{"repo":{"description":"owner/name"}}}`), "mcp__gh", "GitHub", ""),
		NewSearchDoc("mcp__gh__get_issue", "Get one issue", nil, "mcp__gh", "GitHub", ""),
		NewSearchDoc("mcp__fs__read_file", "Read a file; issues with large files are reported", nil, "mcp__fs", "", ""),
		NewSearchDoc("mcp__every__get_sum", "Returns the sum of two numbers", json.RawMessage(`{"properties":{"a":{"description":"First number"}}}`), "mcp__every", "", ""),
	}
	names := func(hits []SearchHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Name)
		}
		return out
	}
	if got := names(Rank("get_issue", docs, 3)); got[0] != "mcp__gh__get_issue" {
		t.Errorf("exact name query: %v", got)
	}
	if got := names(Rank("list repository issues", docs, 2)); got[0] != "mcp__gh__list_issues" {
		t.Errorf("coverage: %v", got)
	}
	if got := names(Rank("sum of two numbers", docs, 1)); len(got) != 1 || got[0] != "mcp__every__get_sum" {
		t.Errorf("limit and match: %v", got)
	}
	if got := Rank("the of and", docs, 5); got != nil {
		t.Errorf("stop words only: %v", got)
	}
}

func TestLogFormatAndRotation(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	if got := FormatLogLine("srv", json.RawMessage(`{"level":"error","data":{"a":[1, 2]}}`), now); got != "2026-01-02T03:04:05.678Z [srv] error {\"a\":[1,2]}\n" {
		t.Errorf("line: %q", got)
	}
	if got := FormatLogLine("srv", json.RawMessage(`"plain"`), now); got != "2026-01-02T03:04:05.678Z [srv] info plain\n" {
		t.Errorf("line: %q", got)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.log")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", MaxLogBytes+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewLog(path)
	l.Write("s", json.RawMessage(`{"data":"after"}`))
	old, _ := os.Stat(path + ".1")
	cur, _ := os.ReadFile(path)
	if old == nil || old.Size() != MaxLogBytes+1 || !strings.HasSuffix(string(cur), "[s] info after\n") || len(cur) > 100 {
		t.Errorf("rotation: old %v, current %q", old, cur)
	}
}
