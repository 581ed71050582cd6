package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// The package differential test (issue 27): the same real npm packages are installed by the
// real pi 1.6.0 (`pi install`) into one agent dir and by `pigo install` into another. Then:
// both wrote the same settings entries and the same install folders; pigo finds pi's
// installation and loads the same skills and prompt templates from both; against a scripted
// model, the skills block of the system prompt and a template's expansion are the same in pi's
// and pigo's requests (pi on pigo's installation too); each code extension is one info.
//
// Deliberate differences, masked here and nowhere else:
//   - pigo's system prompt is pi 0.84's (D19): only the <available_skills> block is compared;
//   - pi runs with --no-extensions: the packages' code is not what is compared (and would run).

// testPackages are the packages install-pi.sh caches (the same list, pinned): three with
// skills or prompt templates, one that is only code.
var testPackages = []string{"npm:pi-subagents@0.67.0", "npm:@victor-software-house/pi-curated-themes@0.2.1",
	"npm:amp-themes@0.4.1", "npm:@tintinweb/pi-subagents@0.14.1"}

// npmEnv returns the environment that points npm at install-pi.sh's cache of the test packages,
// preferring it to the registry, or skips when the cache was not filled.
func npmEnv(t *testing.T) []string {
	t.Helper()
	dir := pitest.Dir()
	want := strings.Join(strings.Fields(strings.NewReplacer("npm:", "").Replace(strings.Join(testPackages, " "))), " ")
	got, err := os.ReadFile(filepath.Join(dir, "packages", ".installed"))
	if err != nil || strings.TrimSpace(string(got)) != want {
		t.Skipf("the test packages are not in the npm cache (%s): run scripts/install-pi.sh (needs the npm registry)", dir)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	return []string{"npm_config_cache=" + filepath.Join(dir, "npm-cache"), "npm_config_prefer_offline=true",
		"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false"}
}

// pigoIn runs pigo in-process with HOME set to home; it returns stdout, stderr and the exit code.
func pigoIn(home string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	c := &CLI{Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		switch k {
		case "HOME":
			return home
		case "PI_CODING_AGENT_DIR":
			return filepath.Join(home, ".pi", "agent")
		}
		return os.Getenv(k)
	}}
	code := c.Main(args)
	return out.String(), errb.String(), code
}

func TestPackagesFromNpmAgainstPi(t *testing.T) {
	if testing.Short() {
		t.Skip("installs four npm packages twice (-short skips it)")
	}
	pi := pitest.FindVersion(t, pitest.Version16)
	env := npmEnv(t)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	root := t.TempDir()
	piHome, pigoHome := filepath.Join(root, "pi"), filepath.Join(root, "pigo")
	agent := func(home string) string { return filepath.Join(home, ".pi", "agent") }
	for _, d := range []string{agent(piHome), agent(pigoHome), filepath.Join(root, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// pi and pigo install at the same time, each into its own agent dir.
	var wg sync.WaitGroup
	var piErr []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, src := range testPackages {
			cmd := pi.Command("install", src)
			cmd.Dir = filepath.Join(root, "work")
			cmd.Env = append(os.Environ(), "HOME="+piHome, "PI_CODING_AGENT_DIR="+agent(piHome), "NO_COLOR=1",
				"PATH="+pitest.NodeDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
			if out, err := cmd.CombinedOutput(); err != nil {
				piErr = append(piErr, src+": "+err.Error()+"\n"+string(out))
			}
		}
	}()
	for _, src := range testPackages {
		if out, errOut, code := pigoIn(pigoHome, "install", src); code != 0 {
			t.Fatalf("pigo install %s: exit %d\n%s%s", src, code, out, errOut)
		}
	}
	wg.Wait()
	if len(piErr) > 0 {
		t.Fatalf("pi install failed:\n%s", strings.Join(piErr, "\n"))
	}

	// The same settings entries, the same install folders.
	if a, b := packagesOf(t, agent(piHome)), packagesOf(t, agent(pigoHome)); !slices.Equal(a, b) || len(a) != len(testPackages) {
		t.Errorf("settings.json packages: pi %q, pigo %q", a, b)
	}
	for _, name := range []string{"pi-subagents", "@victor-software-house/pi-curated-themes", "amp-themes", "@tintinweb/pi-subagents"} {
		for _, home := range []string{piHome, pigoHome} {
			if _, err := os.Stat(filepath.Join(agent(home), "npm", "node_modules", name, "package.json")); err != nil {
				t.Errorf("%s is not installed in %s: %v", name, agent(home), err)
			}
		}
	}

	// pigo loads the same skills and templates from pi's installation and from its own.
	piCmds, pigoCmds := resources(t, piHome), resources(t, pigoHome)
	if !slices.Equal(piCmds, pigoCmds) {
		t.Errorf("pigo on pi's installation:\n%q\npigo on its own:\n%q", piCmds, pigoCmds)
	}
	for _, want := range []string{"skill:council-mode npm/node_modules/pi-subagents/skills/council-mode/SKILL.md",
		"skill:adapt-ghostty-theme-to-pi npm/node_modules/@victor-software-house/pi-curated-themes/skills/adapt-ghostty-theme-to-pi/SKILL.md",
		"skill:configure-amp-themes npm/node_modules/amp-themes/skills/configure-amp-themes/SKILL.md",
		"parallel-review npm/node_modules/pi-subagents/prompts/parallel-review.md"} {
		if !slices.Contains(piCmds, want) {
			t.Errorf("missing %q in %q", want, piCmds)
		}
	}

	// Against a scripted model: pi's and pigo's skills block and template expansion.
	const prompt = "/parallel-review the parser"
	piSkills, piUser := piRequest(t, pi, piHome, root, prompt)
	pigoSkills, pigoUser := pigoRequest(t, root, piHome, prompt)
	if piSkills == "" || piSkills != pigoSkills {
		t.Errorf("skills block differs:\npi:\n%s\npigo:\n%s", piSkills, pigoSkills)
	}
	if piUser == "" || piUser != pigoUser || !strings.Contains(piUser, "the parser") {
		t.Errorf("template expansion differs:\npi:   %q\npigo: %q", piUser, pigoUser)
	}
	// pi finds pigo's installation: the same block with pigo's agent dir in the paths.
	piOnPigo, _ := piRequest(t, pi, pigoHome, root, prompt)
	if strings.ReplaceAll(piOnPigo, pigoHome, piHome) != piSkills {
		t.Errorf("pi on pigo's installation:\n%s\nwant (paths aside):\n%s", piOnPigo, piSkills)
	}

	// One info per code extension, with the native equivalent where there is one.
	out, _, _ := pigoIn(piHome, "check", "--format", "json", "-C", filepath.Join(root, "work"))
	counts := map[string]int{}
	for _, m := range regexp.MustCompile(`"message": "package \\"(npm:[^"\\]+)\\": the code extension [^"]*"`).FindAllStringSubmatch(out, -1) {
		counts[m[1]]++
		if strings.Contains(m[1], "subagents") && !strings.Contains(m[0], "spawn-agent") {
			t.Errorf("a sub-agent package's info should name spawn-agent: %s", m[0])
		}
	}
	want := map[string]int{"npm:pi-subagents@0.67.0": 1, "npm:amp-themes@0.4.1": 4, "npm:@tintinweb/pi-subagents@0.14.1": 1}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d code-extension infos, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("code-extension infos for %v, want only %v", counts, want)
	}
}

// packagesOf reads the packages array of an agent dir's settings.json.
func packagesOf(t *testing.T, agentDir string) []string {
	b, err := os.ReadFile(filepath.Join(agentDir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Packages []string `json:"packages"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", agentDir, err)
	}
	return s.Packages
}

// resources lists pigo's package skills and templates for an agent dir: "invocation file"
// with the file relative to the agent dir.
func resources(t *testing.T, home string) []string {
	out, errOut, code := pigoIn(home, "commands", "--format", "json", "-C", home)
	if code != 0 {
		t.Fatalf("pigo commands: %d %s", code, errOut)
	}
	var r struct {
		Commands []struct {
			Invocation, Source, File, Package string
		} `json:"commands"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, c := range r.Commands {
		if c.Package == "" {
			continue
		}
		rel, _ := filepath.Rel(filepath.Join(home, ".pi", "agent"), c.File)
		list = append(list, c.Invocation+" "+filepath.ToSlash(rel))
	}
	return list
}

var skillsBlock = regexp.MustCompile(`(?s)<available_skills>.*</available_skills>`)

// firstRequest returns the skills block of the system prompt and the user text of a server's
// first request.
func firstRequest(t *testing.T, srv *llmtest.Server) (skills, user string) {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the scripted model")
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var parts []struct{ Text string }
		_ = json.Unmarshal(raw, &parts)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	for _, m := range body.Messages {
		switch m.Role {
		case "system", "developer":
			skills = skillsBlock.FindString(text(m.Content))
		case "user":
			if user == "" {
				user = text(m.Content)
			}
		}
	}
	return skills, user
}

func writeModels(t *testing.T, home string, srv *llmtest.Server) {
	b, _ := json.Marshal(map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k", "models": []any{map[string]any{"id": "m"}}}}})
	if err := os.WriteFile(filepath.Join(home, ".pi", "agent", "models.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// piRequest runs pi 1.6 -p (code extensions off) on home's agent dir against a scripted model.
func piRequest(t *testing.T, pi pitest.Pi, home, root, prompt string) (string, string) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "ok"})
	writeModels(t, home, srv)
	cmd := pi.Command("--provider", "local", "--model", "m", "--no-extensions", "--no-session", "-p", prompt)
	cmd.Dir = filepath.Join(root, "work")
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+filepath.Join(home, ".pi", "agent"), "PI_OFFLINE=1", "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi -p: %v\n%s", err, out)
	}
	return firstRequest(t, srv)
}

// pigoRequest runs pigo -p on agentHome's agent dir against a scripted model.
func pigoRequest(t *testing.T, root, agentHome, prompt string) (string, string) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "ok"})
	writeModels(t, agentHome, srv)
	out, errOut, code := pigoIn(agentHome, "-p", "--model", "local/m", "--no-session", "-C", filepath.Join(root, "work"), prompt)
	if code != 0 {
		t.Fatalf("pigo -p: %d\n%s%s", code, out, errOut)
	}
	return firstRequest(t, srv)
}
