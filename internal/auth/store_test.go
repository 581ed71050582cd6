package auth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A file pi wrote reads back; a rewrite keeps every entry, unknown fields and key order, in
// JSON.stringify(data, null, 2) form.
func TestRoundTripKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	writeFile(t, s.Path, "\ufeff"+`{
  "anthropic": {"type": "oauth", "refresh": "r1", "access": "a1", "expires": 1700000000000},
  "openai-codex": {"type": "oauth", "refresh": "r2", "access": "a2", "expires": 1.7e12, "accountId": "acc", "future": {"x": [1, "é\u2028"]}},
  "zai": {"type": "api_key", "key": "!echo k", "env": {"B": "2", "A": "1"}}
}`)
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Providers(); strings.Join(got, ",") != "anthropic,openai-codex,zai" {
		t.Fatalf("providers %v", got)
	}
	if c := f.Get("openai-codex"); c.Access != "a2" || c.Expires != 1.7e12 || c.Get("accountId") != "acc" {
		t.Errorf("codex %+v", c)
	}
	if c := f.Get("zai"); !c.KeySet || c.Key != "!echo k" || c.Env["A"] != "1" {
		t.Errorf("zai %+v", c)
	}
	_, err = s.Modify(context.Background(), "anthropic", func(cur *Credential) (*Credential, error) {
		n := *cur
		n.Access = "a1-new"
		return &n, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.Path)
	want := `{
  "anthropic": {
    "type": "oauth",
    "refresh": "r1",
    "access": "a1-new",
    "expires": 1700000000000
  },
  "openai-codex": {
    "type": "oauth",
    "refresh": "r2",
    "access": "a2",
    "expires": 1700000000000,
    "accountId": "acc",
    "future": {
      "x": [
        1,
        "é\u2028"
      ]
    }
  },
  "zai": {
    "type": "api_key",
    "key": "!echo k",
    "env": {
      "B": "2",
      "A": "1"
    }
  }
}`
	want = strings.Replace(want, `\u2028`, "\u2028", 1) // JSON.stringify writes U+2028 as is
	if string(data) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", data, want)
	}
}

// A malformed or unreadable auth.json is an error naming the file and what is wrong, never a
// silent "no key".
func TestMalformed(t *testing.T) {
	dir := t.TempDir()
	p := Path(dir)
	for _, tc := range []struct{ data, want string }{
		{`{"a": {"type": "api_key", "key": 1}}`, `provider "a": "key" must be a string`},
		{`{"a": {"type": "oauth", "access": "x"}}`, `provider "a": an oauth credential needs`},
		{`{"a": {"type": "bearer"}}`, `unknown credential type "bearer"`},
		{`[1]`, `expected an object of provider credentials`},
		{"{\n  \"a\": {\"type\": \"api_key\",}\n}", `not valid JSON`},
	} {
		writeFile(t, p, tc.data)
		_, err := Read(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.data, err)
		}
		// A change refuses to touch it.
		_, err = NewStore(dir).Modify(context.Background(), "b", func(*Credential) (*Credential, error) {
			return &Credential{Type: TypeAPIKey, Key: "k", KeySet: true}, nil
		})
		if err == nil {
			t.Errorf("%s: modified a malformed file", tc.data)
		}
		if got, _ := os.ReadFile(p); string(got) != tc.data {
			t.Errorf("%s: file changed to %s", tc.data, got)
		}
	}
	if os.Geteuid() != 0 {
		writeFile(t, p, `{}`)
		_ = os.Chmod(p, 0)
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("unreadable: %v", err)
		}
	}
}

// The file is created 0600 in a 0700 agent dir; an existing file keeps its mode.
func TestModeAndCreation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	s := NewStore(dir)
	if _, err := s.Modify(context.Background(), "zai", func(*Credential) (*Credential, error) {
		return &Credential{Type: TypeAPIKey, Key: "k", KeySet: true}, nil
	}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(s.Path)
	dst, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Errorf("modes %v %v", st.Mode(), dst.Mode())
	}
	_ = os.Chmod(s.Path, 0o640)
	_, _ = s.Delete(context.Background(), "zai")
	st, _ = os.Stat(s.Path)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode not kept: %v", st.Mode())
	}
	if _, err := os.Stat(s.Path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
}

// Many writers at once, each changing its own provider: every change is there at the end.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	s := NewStore(t.TempDir())
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Modify(context.Background(), fmt.Sprintf("p%d", i), func(*Credential) (*Credential, error) {
				return &Credential{Type: TypeAPIKey, Key: fmt.Sprint(i), KeySet: true}, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Providers()); n != 24 {
		t.Errorf("%d of 24 entries", n)
	}
}

// A lock left by a dead process is taken over once stale; a live one is waited for.
func TestStaleLock(t *testing.T) {
	s := NewStore(t.TempDir())
	writeFile(t, s.Path, `{}`)
	if err := os.Mkdir(s.Path+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	old := mustTime(t, "2020-01-01T00:00:00Z")
	_ = os.Chtimes(s.Path+".lock", old, old)
	if _, err := s.Delete(context.Background(), "x"); err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	if err := os.Mkdir(s.Path+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Delete(ctx, "x"); err == nil {
		t.Error("a live lock was not waited for")
	}
}

func mustTime(t *testing.T, s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
