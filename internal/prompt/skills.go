package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Skill is one loaded skill.
type Skill struct {
	Name        string
	Description string
	// File is the skill's Markdown file (SKILL.md or a root .md file).
	File string
	// DisableModelInvocation keeps the skill out of the system prompt (/skill:name still works).
	DisableModelInvocation bool
}

// BaseDir is the directory a skill's relative references resolve against.
func (s *Skill) BaseDir() string { return filepath.Dir(s.File) }

// ReadSkill reads what the system prompt needs from a skill's frontmatter:
// disable-model-invocation, and the description when description is "". The name comes from
// the caller (the resolved command set, which has already validated and de-duplicated it).
func ReadSkill(name, description, file string) Skill {
	s := Skill{Name: name, Description: description, File: file}
	if b, err := os.ReadFile(file); err == nil {
		if fm, _, ok := splitFrontmatter(string(b)); ok {
			var v struct {
				Description string `yaml:"description"`
				Disable     bool   `yaml:"disable-model-invocation"`
			}
			// pi parses the block with the JS yaml library, which keeps a literal block's final line
			// break even at the end of the text ("description: |" → "…\n"); yaml.v3 drops it there.
			if yaml.Unmarshal([]byte(fm+"\n"), &v) == nil {
				s.DisableModelInvocation = v.Disable
				if s.Description == "" {
					s.Description = v.Description
				}
			}
		}
	}
	return s
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// FormatSkills is pi's skills block for the system prompt ("" when no skill is visible).
func FormatSkills(skills []Skill) string {
	var b strings.Builder
	n := 0
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		if n == 0 {
			b.WriteString("\n\nThe following skills provide specialized instructions for specific tasks.\n" +
				"Use the read tool to load a skill's file when the task matches its description.\n" +
				"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n" +
				"\n<available_skills>")
		}
		n++
		b.WriteString("\n  <skill>\n    <name>" + xmlEscaper.Replace(s.Name) + "</name>\n    <description>" +
			xmlEscaper.Replace(s.Description) + "</description>\n    <location>" + xmlEscaper.Replace(s.File) + "</location>\n  </skill>")
	}
	if n == 0 {
		return ""
	}
	b.WriteString("\n</available_skills>")
	return b.String()
}

// SkillMessage is what `/skill:name args` becomes (pi's _expandSkillCommand): the skill's
// body (frontmatter removed, trimmed) in a <skill> element, then the arguments after a blank
// line when there are any.
func SkillMessage(s *Skill, args string) (string, error) {
	b, err := os.ReadFile(s.File)
	if err != nil {
		return "", fmt.Errorf("skill %q: %v", s.Name, err)
	}
	body := strings.TrimSpace(bodyOf(string(b)))
	block := `<skill name="` + s.Name + `" location="` + s.File + "\">\nReferences are relative to " + s.BaseDir() + ".\n\n" + body + "\n</skill>"
	if args = strings.TrimSpace(args); args != "" {
		return block + "\n\n" + args, nil
	}
	return block, nil
}

// splitFrontmatter is pi's extractFrontmatter: BOM stripped, CRLF and CR normalised, a
// frontmatter block from a leading "---" to the next "\n---"; the body after it is trimmed.
// Without frontmatter the body is the normalised text, untrimmed.
func splitFrontmatter(s string) (fm, body string, ok bool) {
	s = strings.ReplaceAll(strings.ReplaceAll(stripBOM(s), "\r\n", "\n"), "\r", "\n")
	if !strings.HasPrefix(s, "---") {
		return "", s, false
	}
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return "", s, false
	}
	end += 3
	if end < 4 {
		return "", strings.TrimSpace(s[end+4:]), true
	}
	return s[4:end], strings.TrimSpace(s[end+4:]), true
}

func bodyOf(s string) string {
	_, body, _ := splitFrontmatter(s)
	return body
}
