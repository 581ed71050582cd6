package engine

import (
	"fmt"
	"testing"
)

// realistic is about 60 tools and 10 rules, as a seed user with the whole catalogue has.
func realistic() *Input {
	exts := catalogue()
	gh := Extension{Source: Source{Kind: KindToolset, Name: "github", File: "toolsets/github.cue"}}
	for i := range 18 {
		gh.Tools = append(gh.Tools, tool(fmt.Sprintf("read-github-thing-%d", i), "gh", structured, fixedCodemode, when(`which("gh") && os != "windows"`)))
	}
	more := Extension{Source: Source{Kind: KindToolset, Name: "more", File: "toolsets/more.cue"}}
	for i := range 9 {
		more.Tools = append(more.Tools, tool(fmt.Sprintf("aft_op_%d", i), "aft", structured, when(`which("aft")`)))
	}
	exts = append(exts, gh, more)
	return &Input{
		Extensions: exts,
		Model:      glm,
		Env:        linuxEnv(),
		Personal: Personal{
			FileIOByModel: []FileIOEntry{{Models: pats("zhipu/*", "glm-*"), FileIO: FileIOOpencode, Span: at()}},
			DisabledTools: []Rule{rule("disabledTools", 0, []string{"talk-*"}), rule("disabledTools", 1, []string{"web_*"}, "gpt-*"),
				rule("disabledTools", 2, []string{"TodoWrite", "AskUserQuestion"})},
			EnabledTools: []Rule{rule("enabledTools", 0, []string{"web_search"}, "glm-*"), rule("enabledTools", 1, []string{"talk-send"})},
			CodemodeOnlyTools: []Rule{rule("codemodeOnlyTools", 0, []string{"aft_*"}), rule("codemodeOnlyTools", 1, []string{"lsp-inspect"}),
				rule("codemodeOnlyTools", 2, []string{"web_fetch"}), rule("codemodeOnlyTools", 3, []string{"{read,list}-github-*"}),
				rule("codemodeOnlyTools", 4, []string{"nope_*"})},
		},
	}
}

func BenchmarkResolveRealistic(b *testing.B) {
	in := realistic()
	n := 0
	for _, e := range in.Extensions {
		n += len(e.Tools)
	}
	b.ReportMetric(float64(n), "tools")
	b.ReportAllocs()
	for b.Loop() {
		Resolve(in)
	}
}

// scaled has n tools in 10 extensions and r rules: half literal names, half globs.
func scaled(n, r int) *Input {
	in := &Input{Env: linuxEnv(), Model: glm, Extensions: []Extension{builtins()}}
	for e := range 10 {
		ext := Extension{Source: Source{Kind: KindExtension, Name: fmt.Sprint("ext", e), File: fmt.Sprintf("ext%d.jsonc", e)}}
		for i := range n / 10 {
			ext.Tools = append(ext.Tools, Tool{Name: fmt.Sprintf("t%d_%d", e, i), PromptSnippet: "x", Structured: i%2 == 0})
		}
		in.Extensions = append(in.Extensions, ext)
	}
	for i := range r {
		text := fmt.Sprintf("t%d_%d", i%10, i)
		if i%2 == 1 {
			text = fmt.Sprintf("t%d_%d*", i%10, i)
		}
		field := []string{"disabledTools", "enabledTools", "codemodeOnlyTools"}[i%3]
		ru := rule(field, i, []string{text})
		switch field {
		case "disabledTools":
			in.Personal.DisabledTools = append(in.Personal.DisabledTools, ru)
		case "enabledTools":
			in.Personal.EnabledTools = append(in.Personal.EnabledTools, ru)
		default:
			in.Personal.CodemodeOnlyTools = append(in.Personal.CodemodeOnlyTools, ru)
		}
	}
	return in
}

func BenchmarkResolveScaling(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		for _, r := range []int{10, 100, 1000} {
			in := scaled(n, r)
			b.Run(fmt.Sprintf("tools=%d/rules=%d", n, r), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					Resolve(in)
				}
			})
		}
	}
}
