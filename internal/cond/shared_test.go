package cond

import (
	"testing"

	"github.com/expr-lang/expr"
)

// sharedCorpus: the shipped conditions, the settings/env/which forms users write, and broken
// ones (unknown fields, wrong types, syntax, non-boolean results).
var sharedCorpus = []string{
	`which("gh") && os != "windows"`, `len(lsp.servers) > 0`, `aft.found`, `vision.resolved && !("image" in model.input)`,
	`os == "windows"`, `os != "windows"`, `aft.found && aft.search`, `true`, `os == 'linux'`, `which('git')`,
	`settings.a.b == 1`, `env.HOME != "" && !headless`, `model.provider == "anthropic" && model.reasoning`,
	`model.contextWindow >= 200000 || model.maxTokens > 8192`, `"image" in model.input`, `arch in ["amd64", "arm64"]`,
	`all(["a", "b"], # != "") && len(1..20) == 20`, `settings?.x?.y ?? false`, `lower(model.id) startsWith "gpt"`,
	`model.provder == "x"`, `os == 1`, `len(os)`, `os ==`, `which()`, `which(1)`, `aft.found && `, `model.id`,
	`settings.a + 1`, `1 +`, `(`, `unknownFn(os)`, `lsp.servers[0] == "gopls"`, `let x = os; x == "linux"`,
	`os == "linux" ? true : false`, `now() > date("2020-01-01")`, `1..3 | map(# * 2) | sum() == 12`,
}

// TestSharedConfMatchesExpr: one shared configuration compiles every condition to the same
// program, or fails with the same error, as expr.Compile with a fresh one — in both orders,
// so the shared type cache's state does not matter.
func TestSharedConfMatchesExpr(t *testing.T) {
	check := func(src string) {
		t.Helper()
		want, werr := expr.Compile(src, expr.Env(Env{}), expr.AsBool())
		got, gerr := compileShared(src)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%q: error %v, expr.Compile %v", src, gerr, werr)
		}
		if werr == nil && got.Disassemble() != want.Disassemble() {
			t.Fatalf("%q: program\n%s\nexpr.Compile\n%s", src, got.Disassemble(), want.Disassemble())
		}
	}
	for _, s := range sharedCorpus {
		check(s)
	}
	for i := len(sharedCorpus) - 1; i >= 0; i-- {
		check(sharedCorpus[i])
	}
}

func BenchmarkCompileShipped(b *testing.B) {
	for b.Loop() {
		for _, s := range sharedCorpus[:7] {
			if _, err := compile(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}
