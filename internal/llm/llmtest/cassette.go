package llmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Cassette is a recorded HTTP exchange file (go-vcr version 2 layout), as kept in
// shared/fixtures/providers.
type Cassette struct {
	Version      int           `yaml:"version"`
	Interactions []Interaction `yaml:"interactions"`
}

// Interaction is one recorded request and its response.
type Interaction struct {
	ID      int `yaml:"id"`
	Request struct {
		Method  string              `yaml:"method"`
		URL     string              `yaml:"url"`
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
	} `yaml:"request"`
	Response struct {
		Code    int                 `yaml:"code"`
		Status  string              `yaml:"status"`
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
	} `yaml:"response"`
}

// LoadCassette parses a cassette file.
func LoadCassette(path string) (*Cassette, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Cassette
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(c.Interactions) == 0 {
		return nil, fmt.Errorf("%s: no interactions", path)
	}
	return &c, nil
}

// Turn returns a turn that replays the interaction's response verbatim (status, content
// type, body); set Chunk/Noise on it to re-chunk the recorded stream.
func (in *Interaction) Turn() Turn {
	hdr := map[string]string{}
	for k, v := range in.Response.Headers {
		if len(v) > 0 && strings.EqualFold(k, "Content-Type") {
			hdr["Content-Type"] = v[0]
		}
	}
	code := in.Response.Code
	if code == 0 {
		code = 200
	}
	return Turn{Raw: &Raw{Code: code, Header: hdr, Body: in.Response.Body}}
}

// FixturesDir finds shared/fixtures/providers: $PIGO_SHARED_DIR/fixtures/providers, else a
// "shared" directory beside the repository or any of the working directory's ancestors.
// It returns "" when there is none.
func FixturesDir() string {
	if d := os.Getenv("PIGO_SHARED_DIR"); d != "" {
		p := filepath.Join(d, "fixtures", "providers")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "fixtures", "providers")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Fixture loads a cassette by its path under shared/fixtures/providers (for example
// "openai/chat-completions-tool-streaming.yaml"), skipping the test when the shared directory
// is absent.
func Fixture(t testing.TB, name string) *Cassette {
	t.Helper()
	dir := FixturesDir()
	if dir == "" {
		t.Skipf("shared/fixtures/providers not found (set PIGO_SHARED_DIR): skipping the recorded-stream replay of %s", name)
	}
	c, err := LoadCassette(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
