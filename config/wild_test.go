package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
)

// wildDir is the real users' corpus (../shared/wild from the repository root). It is not part
// of the repository; the test skips when it is absent.
var wildDir = filepath.Join("..", "..", "shared", "wild")

// wildPlace says where a wild file goes, following EXPECTED.md: `.pi__agent__X` is the agent
// dir's X, `.pi__X` a project's `.pi/X`, a README block the agent dir file it documents
// (sandbox.json for the bwrap block), a skill skills/<its folder>/SKILL.md, and an agent or
// prompt outside any .pi folder (pi's own examples) the agent dir's agents/ or prompts/.
func wildPlace(category, name string) (rel string, project bool) {
	parts := strings.Split(name, "__")
	path := strings.Join(parts[2:], "/") // drop owner and repository
	if strings.Contains(path, "README.md/L") {
		base := strings.TrimSuffix(parts[len(parts)-1], ".jsonc")
		if base == "bwrap.json" {
			base = "sandbox.json"
		}
		return base, false
	}
	if category == "skills" {
		return "skills/" + parts[len(parts)-2] + "/SKILL.md", false
	}
	if i := strings.Index(path, ".pi/agent/"); i >= 0 {
		return path[i+len(".pi/agent/"):], false
	}
	if i := strings.Index(path, ".pi/"); i >= 0 {
		return ".pi/" + path[i+len(".pi/"):], true
	}
	return category + "/" + parts[len(parts)-1], false
}

// wildWant is one row of EXPECTED.md.
type wildWant struct {
	errors, warnings int
	// code must appear on at least one diagnostic (the syntax, legacy and foreign rows).
	code string
	// info: at least one info diagnostic; infoExact: exactly this many (-1: not checked).
	info      bool
	infoExact int
	// unknown names keys that must be reported as unknown-field infos.
	unknown []string
	// line is the expected line of the error (±1), 0 when not checked.
	line int
}

// wildTable is EXPECTED.md, keyed by a prefix of the file name (category/owner…).
func wildTable() map[string]wildWant {
	ok := wildWant{infoExact: -1}
	foreign := wildWant{code: "foreign-dialect", info: true, infoExact: 1}
	unknown := func(keys ...string) wildWant { return wildWant{info: true, infoExact: -1, unknown: keys} }
	withInfo := wildWant{info: true, infoExact: -1}
	return map[string]wildWant{
		"settings/Eckii24":       {errors: 1, code: "syntax", infoExact: -1, line: -1},
		"settings/AodhanHayter":  ok,
		"settings/Artawower":     unknown("powerline"),
		"settings/BlackBeltTech": unknown("worktreeInit"),
		"settings/IAreKyleW00t":  ok,
		"settings/Kohei-Wada":    ok,
		"settings/QuiiBz":        ok,
		"settings/codethare":     unknown("subagents"),
		"settings/ctcac00":       unknown("sessions"),
		"settings/trim21":        ok,
		"models/22GNUs":          ok,
		"models/SeanMcLoughlin":  ok,
		"models/WillNilges":      ok,
		"models/ahstn":           ok,
		"models/bjschafer":       ok,
		"models/cenkalti":        unknown("_launch"),
		"models/channingwalton":  unknown("limitSource"),
		"models/destngx":         ok,
		"sandbox/trim21":         {warnings: 1, code: "legacy-shape", infoExact: -1},
		"sandbox/CalicoX":        {warnings: 1, code: "legacy-file", infoExact: -1},
		"sandbox/Khan":           foreign,
		"sandbox/Mazon":          foreign,
		"sandbox/heph2":          foreign,
		"sandbox/jmanuelrosa":    foreign,
		"sandbox/igor-makarov":   foreign,
		"sandbox/solodov":        foreign,
		"lsp/trim21":             ok,
		"lsp/ctcac00":            foreign,
		"lsp/codethare":          foreign,
		"lsp/vanyastaff":         foreign,
		"lsp/AndrewPBerg":        foreign,
		"lsp/xynogen":            foreign,
		"agents/badlogic":        ok,
		"agents/IAreKyleW00t":    withInfo,
		"agents/NVIDIAGameWorks": withInfo,
		"agents/Wirasm":          ok, // only name and description: nothing to say (see the report)
		"agents/bradwright":      withInfo,
		"agents/fbosch":          withInfo,
		"agents/leocavalcante":   ok, // nothing unknown; the :max suffix draws no diagnostic (see the report)
		"agents/spkane":          {warnings: 1, infoExact: -1},
		"prompts/":               ok,
		"skills/badlogic__pi-mono__packages__coding-agent__test__fixtures__skills__invalid-yaml":          {errors: 1, code: "syntax", infoExact: -1},
		"skills/badlogic__pi-mono__packages__coding-agent__test__fixtures__skills__missing-description":   {warnings: 1, infoExact: -1},
		"skills/badlogic__pi-mono__packages__coding-agent__test__fixtures__skills__name-mismatch":         {warnings: 1, infoExact: -1},
		"skills/badlogic__pi-mono__packages__coding-agent__test__fixtures__skills__unknown-field":         withInfo,
		"skills/badlogic__pi-mono__packages__coding-agent__test__fixtures__skills__multiline-description": ok,
		"skills/ctcac00":  ok,
		"skills/hhelibeb": {warnings: 1, code: "argument-hint-list", infoExact: -1},
	}
}

func lookupWild(table map[string]wildWant, key string) (wildWant, string, bool) {
	best := ""
	for p := range table {
		if strings.HasPrefix(key, p) && len(p) > len(best) {
			best = p
		}
	}
	w, ok := table[best]
	return w, best, ok && best != ""
}

var missingComma = regexp.MustCompile(`"\s*\n\s*"`)

// TestWild places every real user's file in its own tree, runs the check and compares the
// verdict with EXPECTED.md row by row.
func TestWild(t *testing.T) {
	if _, err := os.Stat(filepath.Join(wildDir, "EXPECTED.md")); err != nil {
		t.Skipf("the real users' corpus is not here (%s): %v", wildDir, err)
	}
	table := wildTable()
	used := map[string]bool{}
	cats := []string{"settings", "models", "sandbox", "lsp", "agents", "prompts", "skills"}
	n := 0
	for _, cat := range cats {
		names, err := os.ReadDir(filepath.Join(wildDir, cat))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range names {
			key := cat + "/" + e.Name()
			want, row, ok := lookupWild(table, key)
			if !ok {
				t.Errorf("%s: no row of EXPECTED.md covers it", key)
				continue
			}
			used[row] = true
			n++
			t.Run(key, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(wildDir, cat, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				rel, project := wildPlace(cat, e.Name())
				root := t.TempDir()
				agentDir, projectDir := filepath.Join(root, "home", ".pi", "agent"), filepath.Join(root, "work")
				target := filepath.Join(agentDir, rel)
				if project {
					target = filepath.Join(projectDir, rel)
				}
				if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(target, data, 0o644); err != nil {
					t.Fatal(err)
				}
				approve := true
				cfg, err := config.Load(config.Options{AgentDir: agentDir, ProjectDir: projectDir, Approve: &approve,
					Home: filepath.Join(root, "home"), Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				cfg.AddEmbedded()
				list := cfg.Check()
				var b strings.Builder
				diag.WriteText(&b, list, diag.Style{})
				t.Logf("placed at %s\n%s", strings.TrimPrefix(target, root+"/"), b.String())
				errs, warns, infos := list.Count()
				if errs != want.errors || warns != want.warnings {
					t.Errorf("%d errors, %d warnings; EXPECTED.md says %d errors, %d warnings", errs, warns, want.errors, want.warnings)
				}
				if want.info && infos == 0 {
					t.Errorf("no info diagnostic; EXPECTED.md wants at least one")
				}
				if want.infoExact >= 0 && infos != want.infoExact {
					t.Errorf("%d infos, want exactly %d", infos, want.infoExact)
				}
				if want.code != "" && !slices.ContainsFunc(list, func(d diag.Diagnostic) bool { return d.Code == want.code }) {
					t.Errorf("no %s diagnostic", want.code)
				}
				for _, k := range want.unknown {
					if !slices.ContainsFunc(list, func(d diag.Diagnostic) bool {
						return d.Code == "unknown-field" && d.Severity == diag.Info && strings.Contains(d.Message, `"`+k+`"`)
					}) {
						t.Errorf("no unknown-field info for %q", k)
					}
				}
				if want.line != 0 {
					// The missing comma: the error is on the line of the next element (±1).
					m := missingComma.FindIndex(data)
					if m == nil {
						t.Fatalf("cannot find the missing comma in the file")
					}
					wantLine := 1 + strings.Count(string(data[:m[1]]), "\n")
					for _, d := range list {
						if d.Code == "syntax" {
							if l, _ := d.Pos(); l < wantLine-1 || l > wantLine+1 {
								t.Errorf("syntax error on line %d, want %d±1", l, wantLine)
							}
						}
					}
				}
			})
		}
	}
	for row := range table {
		if !used[row] && row != "lsp/xynogen" {
			t.Errorf("row %s of EXPECTED.md matched no file", row)
		}
	}
	if n == 0 {
		t.Fatal("no wild files found")
	}
}
