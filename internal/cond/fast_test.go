package cond

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// fastRand builds random conditions: mostly well-formed trees over the facts, literals and
// operators (the subset and what lies just outside it), sometimes a soup of tokens.
type fastRand struct{ r *rand.Rand }

var (
	fastNames = []string{"model.provider", "model.id", "model.reasoning", "model.input", "model.contextWindow",
		"model.maxTokens", "os", "arch", "headless", "lsp.servers", "aft.found", "aft.search", "vision.resolved",
		"settings.a", "env.HOME", "model", "lsp", "aft", "unknown", "model.provder", "Model.ID", "true", "false", "nil",
		"in", "not", "len", "which", "aft. found", "aft .found", "aft.found.x", "model.input[0]", "aft?.found"}
	fastStrings = []string{`"linux"`, `'windows'`, `"gh"`, `'git'`, `"image"`, `"text"`, `"anthropic"`, `""`, `''`,
		`"x y"`, `"it's"`, `'say "hi"'`, `"a\"b"`, `"\n"`, `"é"`, "`raw`", `"unterminated`, `'gopls'`, `"amd64"`}
	fastInts = []string{"0", "1", "8192", "200000", "007", "1_0", "1.5", "1e3", "0x10", "999999999", "9999999999",
		"12345678901234567890", "-1", "2"}
	fastBinary = []string{"==", "!=", "<", "<=", ">", ">=", "in", "&&", "||", "and", "or", "+", "=", "&", "|",
		"matches", "contains", "not in", "??", "..", "==="}
	fastSpaces = []string{" ", "", "  ", "\t", "\n", "\u00a0"}
)

func (g *fastRand) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *fastRand) sp() string {
	if g.r.IntN(8) == 0 {
		return g.pick(fastSpaces)
	}
	return " "
}

func (g *fastRand) expr(depth int) string {
	if depth <= 0 || g.r.IntN(4) == 0 {
		switch g.r.IntN(6) {
		case 0, 1, 2:
			return g.pick(fastNames)
		case 3:
			return g.pick(fastStrings)
		case 4:
			return g.pick(fastInts)
		default:
			return g.pick([]string{"which", "len", "lower", "which ", "len "}) + "(" + g.expr(depth-1) + ")"
		}
	}
	switch g.r.IntN(10) {
	case 0:
		return "!" + g.sp() + g.expr(depth-1)
	case 1:
		return "(" + g.sp() + g.expr(depth-1) + g.sp() + ")"
	case 2:
		return g.pick([]string{"which", "len"}) + "(" + g.expr(depth-1) + g.pick([]string{")", ", 1)", ""})
	default:
		return g.expr(depth-1) + g.sp() + g.pick(fastBinary) + g.sp() + g.expr(depth-1)
	}
}

// typed builds a condition of type typ ("bool", "string", "int", "list") from the subset's
// forms, with an occasional step outside it.
func (g *fastRand) typed(typ string, depth int) string {
	if g.r.IntN(40) == 0 {
		return g.expr(1)
	}
	leaf := depth <= 0 || g.r.IntN(3) == 0
	switch typ {
	case "string":
		if leaf || g.r.IntN(2) == 0 {
			return g.pick([]string{`"linux"`, `'windows'`, `"gh"`, `"image"`, `"text"`, `""`, `"x y"`, `"anthropic"`})
		}
		return g.pick([]string{"os", "arch", "model.provider", "model.id"})
	case "int":
		if leaf || g.r.IntN(2) == 0 {
			return g.pick([]string{"0", "1", "2", "8192", "200000", "999999999", "model.contextWindow", "model.maxTokens"})
		}
		return "len(" + g.sp() + g.typed("list", depth-1) + ")"
	case "list":
		return g.pick([]string{"model.input", "lsp.servers"})
	}
	if leaf {
		return g.pick([]string{"true", "false", "headless", "aft.found", "aft.search", "vision.resolved", "model.reasoning",
			`which("gh")`, `which('git')`, "which(os)", "which(" + g.typed("string", 0) + ")"})
	}
	switch g.r.IntN(8) {
	case 0:
		return "!" + g.sp() + g.typed("bool", depth-1)
	case 1:
		return "(" + g.typed("bool", depth-1) + ")"
	case 2:
		t := g.pick([]string{"bool", "string", "int"})
		return g.typed(t, depth-1) + g.sp() + g.pick([]string{"==", "!="}) + g.sp() + g.typed(t, depth-1)
	case 3:
		return g.typed("int", depth-1) + g.sp() + g.pick([]string{"<", "<=", ">", ">="}) + g.sp() + g.typed("int", depth-1)
	case 4:
		return g.typed("string", depth-1) + " in " + g.typed("list", depth-1)
	default:
		return g.typed("bool", depth-1) + g.sp() + g.pick([]string{"&&", "||"}) + g.sp() + g.typed("bool", depth-1)
	}
}

func (g *fastRand) src() string {
	if g.r.IntN(2) == 0 {
		return g.typed("bool", 1+g.r.IntN(4))
	}
	if g.r.IntN(10) == 0 {
		var b strings.Builder
		for range 1 + g.r.IntN(6) {
			b.WriteString(g.pick([][]string{fastNames, fastStrings, fastInts, fastBinary, {"(", ")", "!", ",", "?", ":"}}[g.r.IntN(5)]))
			b.WriteString(g.sp())
		}
		return b.String()
	}
	return g.expr(1 + g.r.IntN(4))
}

// env returns a random environment whose which records the names it is asked for.
func (g *fastRand) env(calls *[]string) Env {
	strs := func(list ...string) string { return list[g.r.IntN(len(list))] }
	lists := [][]string{nil, {}, {"text"}, {"text", "image"}, {"gopls"}, {""}}
	ints := []int{0, 1, 2, 8192, 200000, 999999999}
	found := map[string]bool{}
	for _, n := range []string{"gh", "git", "linux", "", "image", "pigo-engines"} {
		found[n] = g.r.IntN(2) == 0
	}
	return Env{
		Model: Model{Provider: strs("", "anthropic", "x y", "linux"), ID: strs("", "gpt-4o", "text"), Reasoning: g.r.IntN(2) == 0,
			Input: lists[g.r.IntN(len(lists))], ContextWindow: ints[g.r.IntN(len(ints))], MaxTokens: ints[g.r.IntN(len(ints))]},
		OS: strs("linux", "windows", ""), Arch: strs("amd64", "arm64"), Headless: g.r.IntN(2) == 0,
		LSP: LSP{Servers: lists[g.r.IntN(len(lists))]}, AFT: AFT{Found: g.r.IntN(2) == 0, Search: g.r.IntN(2) == 0},
		Vision: Vision{Resolved: g.r.IntN(2) == 0},
		Which: func(name string) bool {
			*calls = append(*calls, name)
			return found[name]
		},
	}
}

// randEnv is the random environment of seed; its which records the names it is asked for.
func randEnv(seed uint64, calls *[]string) Env {
	return (&fastRand{r: rand.New(rand.NewPCG(seed, 31))}).env(calls)
}

// checkFast fails when parseFast takes a text expr rejects, or evaluates it otherwise than
// expr does (the value, and which names which() was asked for, in order) in the
// environment of each seed. It reports whether the text was taken.
func checkFast(t *testing.T, src string, seeds ...uint64) bool {
	t.Helper()
	fast := parseFast(src)
	if fast == nil {
		return false
	}
	prog, err := expr.Compile(src, expr.Env(Env{}), expr.AsBool())
	if err != nil {
		t.Fatalf("%q: taken by the fast path, but expr: %v", src, err)
	}
	for _, seed := range seeds {
		var gotCalls, wantCalls []string
		env := randEnv(seed, &gotCalls)
		got := fast.eval(&env).b
		out, err := vm.Run(prog, randEnv(seed, &wantCalls))
		if err != nil {
			t.Fatalf("%q: expr fails at run time: %v", src, err)
		}
		if want := out.(bool); got != want || !slices.Equal(gotCalls, wantCalls) {
			t.Fatalf("%q in %+v: fast %v (which %q), expr %v (which %q)", src, env, got, gotCalls, want, wantCalls)
		}
	}
	return true
}

// TestFastMatchesExpr: on 60,000 random conditions, every text the fast path takes compiles
// with expr and evaluates there to the same value, asking which() for the same names, in
// random environments; the shipped conditions and the usual user forms are taken.
func TestFastMatchesExpr(t *testing.T) {
	g := &fastRand{r: rand.New(rand.NewPCG(1, 25))}
	seeds := func(n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = g.r.Uint64()
		}
		return out
	}
	taken, total := 0, 60000
	if testing.Short() {
		total = 6000
	}
	for range total {
		if checkFast(t, g.src(), seeds(6)...) {
			taken++
		}
	}
	if taken < total/3 {
		t.Fatalf("only %d of %d random conditions taken: the generator does not exercise the subset", taken, total)
	}
	t.Logf("%d of %d random conditions taken by the fast path", taken, total)
	for _, src := range []string{
		// the shipped conditions (toolsets/*.cue, commands/*.cue)
		`which("gh") && os != "windows"`, `which("pigo-engines")`, `len(lsp.servers) > 0`, `aft.found`,
		`vision.resolved && !("image" in model.input)`, `os == "windows"`, `os != "windows"`, `aft.found && aft.search`,
		// examples/ and the usual user forms
		`which('git')`, `true`, `model.provider == "anthropic" && model.reasoning`, `!headless`,
		`model.contextWindow >= 200000 || model.maxTokens > 8192`, `"image" in model.input`,
	} {
		if !checkFast(t, src, seeds(64)...) {
			t.Errorf("%q is not taken by the fast path", src)
		}
	}
	for _, src := range sharedCorpus {
		checkFast(t, src, seeds(16)...)
	}
}

// TestFastEvalAllocs: a condition of the subset is evaluated without allocating (expr's VM
// allocates its stack and scopes for each run).
func TestFastEvalAllocs(t *testing.T) {
	p, err := Compile(`vision.resolved && !("image" in model.input) || which("gh") && os != "windows" && len(lsp.servers) > 0`)
	if err != nil {
		t.Fatal(err)
	}
	if p.fast == nil {
		t.Fatal("not taken by the fast path")
	}
	env := Env{OS: "linux", Which: func(string) bool { return true }, LSP: LSP{Servers: []string{"gopls"}}}
	if n := testing.AllocsPerRun(100, func() {
		if ok, err := Eval(p, env); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per evaluation", n)
	}
}

// FuzzFast: whatever the text, the fast path takes it only when expr compiles it to the same
// values.
func FuzzFast(f *testing.F) {
	for _, s := range sharedCorpus {
		f.Add(s)
	}
	g := &fastRand{r: rand.New(rand.NewPCG(3, 3))}
	for range 200 {
		f.Add(g.src())
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 256 {
			return
		}
		checkFast(t, src, 1, 2, 3, 4, 5, 6, 7, 8)
	})
}

// TestLazyMaps: Settings and Env set by Lazy are built only when a condition outside the
// subset is evaluated, once for every copy of the Env, and such a condition reads them.
func TestLazyMaps(t *testing.T) {
	calls := 0
	var env Env
	env.Lazy(func() (map[string]any, map[string]string) {
		calls++
		return map[string]any{"a": map[string]any{"b": 1.0}}, map[string]string{"HOME": "/h"}
	})
	for _, src := range []string{`aft.found || true`, `os == ""`, `!which("x")`} {
		if ok, err := AsBool(src, env); err != nil || !ok {
			t.Fatalf("%q: %v %v", src, ok, err)
		}
	}
	if calls != 0 {
		t.Fatalf("the subset's conditions built the maps (%d calls)", calls)
	}
	copied := env
	for _, src := range []string{`settings.a.b == 1`, `env.HOME == "/h"`, `settings.a.b == 1 && env.HOME != ""`} {
		if ok, err := AsBool(src, copied); err != nil || !ok {
			t.Fatalf("%q: %v %v", src, ok, err)
		}
	}
	if ok, err := AsBool(`env.HOME == "/h"`, env); err != nil || !ok || calls != 1 {
		t.Fatalf("%v %v, %d calls to fill, want one", ok, err, calls)
	}
}
