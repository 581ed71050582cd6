package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// TestResourcePatternsAgainstPi: settings.json's "skills" and "prompts" patterns ("!glob",
// "+path", "-path") turn off what the folders give, as pi 1.6 reads them, and a trusted
// project's .agents/skills folders load from the working folder up to the repository's root
// (not above it, not ~/.agents/skills a second time): the same <available_skills> block and
// the same template expansion from pi 1.6.0 and pigo on the same files.
func TestResourcePatternsAgainstPi(t *testing.T) {
	pi := pitest.FindVersion(t, pitest.Version16)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	agent := filepath.Join(home, ".pi", "agent")
	repo := filepath.Join(root, "repo")
	work := filepath.Join(repo, "work")
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody of " + name + ".\n"
	}
	files := map[string]string{
		filepath.Join(agent, "settings.json"):                              `{"skills": ["!old", "-skills/gone", "!agents-off"], "prompts": ["!draft-*", "!*-wip.md", "+prompts/keep-wip.md"]}`,
		filepath.Join(agent, "trust.json"):                                 `{"` + work + `": true}`,
		filepath.Join(agent, "skills", "kept", "SKILL.md"):                 skill("kept", "An agent dir skill no pattern touches."),
		filepath.Join(agent, "skills", "old", "SKILL.md"):                  skill("old", "Excluded by a glob on its folder's name."),
		filepath.Join(agent, "skills", "gone", "SKILL.md"):                 skill("gone", "Excluded by an exact path."),
		filepath.Join(home, ".agents", "skills", "agents-on", "SKILL.md"):  skill("agents-on", "An Agent Skills skill."),
		filepath.Join(home, ".agents", "skills", "agents-off", "SKILL.md"): skill("agents-off", "Excluded by the user's glob."),
		filepath.Join(agent, "prompts", "review.md"):                       "---\ndescription: Review\n---\nReview $ARGUMENTS now.\n",
		filepath.Join(agent, "prompts", "draft-plan.md"):                   "---\ndescription: Draft\n---\nDraft $ARGUMENTS.\n",
		filepath.Join(agent, "prompts", "keep-wip.md"):                     "---\ndescription: Kept\n---\nKeep $ARGUMENTS.\n",
		filepath.Join(agent, "prompts", "other-wip.md"):                    "---\ndescription: Other\n---\nOther $ARGUMENTS.\n",
		filepath.Join(repo, ".git", "HEAD"):                                "ref: refs/heads/main\n",
		filepath.Join(repo, ".agents", "skills", "repo-root", "SKILL.md"):  skill("repo-root", "The repository root's skill."),
		filepath.Join(work, ".agents", "skills", "here", "SKILL.md"):       skill("here", "The working folder's skill."),
		filepath.Join(work, ".agents", "skills", "hidden", "SKILL.md"):     skill("hidden", "Excluded by the project's pattern."),
		filepath.Join(work, ".pi", "settings.json"):                        `{"skills": ["!hidden"]}`,
		filepath.Join(root, ".agents", "skills", "above", "SKILL.md"):      skill("above", "Above the repository: not loaded."),
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const prompt = "/keep-wip the parser"
	piSkills, piUser := piRequestIn(t, pi, home, work, prompt)
	pigoSkills, pigoUser := pigoRequestIn(t, home, work, prompt)
	for _, name := range []string{"kept", "agents-on", "repo-root", "here"} {
		if !strings.Contains(piSkills, "<name>"+name+"</name>") {
			t.Errorf("pi does not list %s:\n%s", name, piSkills)
		}
	}
	for _, name := range []string{"old", "gone", "agents-off", "hidden", "above"} {
		if strings.Contains(piSkills, "<name>"+name+"</name>") {
			t.Errorf("pi lists %s:\n%s", name, piSkills)
		}
	}
	if piSkills != pigoSkills {
		t.Errorf("skills block differs:\npi:\n%s\npigo:\n%s", piSkills, pigoSkills)
	}
	if piUser != pigoUser || !strings.Contains(piUser, "Keep the parser.") {
		t.Errorf("template expansion differs:\npi:   %q\npigo: %q", piUser, pigoUser)
	}
	// The excluded templates are not commands.
	out, _, _ := pigoIn(home, "commands", "-C", work)
	if strings.Contains(out, "draft-plan") || strings.Contains(out, "other-wip") || !strings.Contains(out, "review") {
		t.Errorf("pigo commands:\n%s", out)
	}
}

// piRequestIn runs pi 1.6 -p in dir on home's agent dir against a scripted model.
func piRequestIn(t *testing.T, pi pitest.Pi, home, dir, prompt string) (string, string) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "ok"})
	writeModels(t, home, srv)
	cmd := pi.Command("--provider", "local", "--model", "m", "--no-extensions", "--no-session", "-p", prompt)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+filepath.Join(home, ".pi", "agent"), "PI_OFFLINE=1", "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi -p: %v\n%s", err, out)
	}
	return firstRequest(t, srv)
}

// pigoRequestIn runs pigo -p in dir on home's agent dir against a scripted model.
func pigoRequestIn(t *testing.T, home, dir, prompt string) (string, string) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "ok"})
	writeModels(t, home, srv)
	out, errOut, code := pigoIn(home, "-p", "--model", "local/m", "--no-session", "-C", dir, prompt)
	if code != 0 {
		t.Fatalf("pigo -p: %d\n%s%s", code, out, errOut)
	}
	return firstRequest(t, srv)
}
