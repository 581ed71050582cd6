package prompt

import (
	"strings"
	"time"
)

// fixedGuidelines are the ones pi adds itself; the seed's {{guidelines}} has only the tools'.
var fixedGuidelines = map[string]bool{guidelineConcise: true, guidelinePaths: true, guidelineBash: true}

// renderTemplate is the seed's system-prompt extension (src/system-prompt/index.ts): the
// template's {{tools}} {{guidelines}} {{project_context}} {{skills}} {{append}} {{date}}
// {{cwd}} are replaced by their blocks; a block whose placeholder is missing is appended on a
// new line when it is not empty. It replaces the custom prompt too (SYSTEM.md,
// --system-prompt), and lists skills whatever tools are active, as the seed does.
func (o *Options) renderTemplate(appendText string, files []ContextFile) string {
	tools := o.ToolLines
	if len(tools) == 0 {
		tools = []string{"(none)"}
	}
	var gs []string
	for _, g := range o.Guidelines {
		if !fixedGuidelines[g] {
			gs = append(gs, g)
		}
	}
	guidelines := ""
	if len(gs) > 0 {
		guidelines = "## Guidelines\n\n" + strings.Join(gs, "\n\n")
	}
	project := ""
	if len(files) > 0 {
		parts := make([]string, len(files))
		for i, f := range files {
			parts[i] = `<project_instructions path="` + f.Path + "\">\n" + f.Content + "\n</project_instructions>"
		}
		project = "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n" + strings.Join(parts, "\n\n") + "\n\n</project_context>\n"
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	blocks := [][2]string{
		{"tools", strings.Join(tools, "\n")},
		{"guidelines", guidelines},
		{"project_context", project},
		{"skills", FormatSkills(o.Skills)},
		{"append", appendText},
		{"date", now().Format("2006-01-02")},
		{"cwd", o.Cwd},
	}
	p := o.Template
	for _, b := range blocks {
		token := "{{" + b[0] + "}}"
		if strings.Contains(p, token) {
			p = strings.ReplaceAll(p, token, b[1])
		} else if b[1] != "" {
			p += "\n" + b[1]
		}
	}
	return p
}
