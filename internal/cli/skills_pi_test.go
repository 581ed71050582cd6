package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
)

// TestListedResourcesAgainstPi: the skills and prompt templates pi 1.6 loads besides the agent
// dir's own folders — the files and folders settings.json lists in "skills" and "prompts"
// ("~" from the home directory, a relative path from the agent dir) and the Agent Skills
// folder ~/.agents/skills — are pigo's too: the same <available_skills> block in the system
// prompt and the same template expansion against a scripted model. A skill under
// ~/.agents/skills whose name differs from its folder is not a warning (pi 1.6 has none).
func TestListedResourcesAgainstPi(t *testing.T) {
	pi := pitest.FindVersion(t, pitest.Version16)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	agent := filepath.Join(home, ".pi", "agent")
	files := map[string]string{
		filepath.Join(agent, "settings.json"):                             `{"skills": ["~/more-skills", "extra/one.md", "skills"], "prompts": ["~/more-prompts"]}`,
		filepath.Join(agent, "skills", "own", "SKILL.md"):                 "---\nname: own\ndescription: The agent dir's own skill.\n---\nOwn.\n",
		filepath.Join(agent, "extra", "one.md"):                           "---\nname: one-file\ndescription: A skill listed as a single file.\n---\nOne.\n",
		filepath.Join(home, "more-skills", "beta", "SKILL.md"):            "---\nname: beta\ndescription: A skill in a listed folder.\n---\nBeta.\n",
		filepath.Join(home, ".agents", "skills", "alpha-dir", "SKILL.md"): "---\nname: alpha\ndescription: An Agent Skills skill whose name is not its folder's.\n---\nAlpha.\n",
		filepath.Join(home, "more-prompts", "review.md"):                  "---\ndescription: Review something\n---\nReview $ARGUMENTS carefully.\n",
		filepath.Join(root, "work", ".keep"):                              "",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const prompt = "/review the parser"
	piSkills, piUser := piRequest(t, pi, home, root, prompt)
	pigoSkills, pigoUser := pigoRequest(t, root, home, prompt)
	for _, name := range []string{"<name>own</name>", "<name>one-file</name>", "<name>beta</name>", "<name>alpha</name>"} {
		if !strings.Contains(piSkills, name) {
			t.Errorf("pi does not list %s:\n%s", name, piSkills)
		}
	}
	if piSkills != pigoSkills {
		t.Errorf("skills block differs:\npi:\n%s\npigo:\n%s", piSkills, pigoSkills)
	}
	if piUser != pigoUser || !strings.Contains(piUser, "Review the parser carefully.") {
		t.Errorf("template expansion differs:\npi:   %q\npigo: %q", piUser, pigoUser)
	}
	out, _, _ := pigoIn(home, "check", "-C", filepath.Join(root, "work"))
	if strings.Contains(out, "differs from its folder") || strings.Contains(out, "does not exist") {
		t.Errorf("pigo check:\n%s", out)
	}
}
