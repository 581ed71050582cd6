// Package cond compiles and evaluates the `when` availability conditions of declarations and
// personalExtensions rules (D7): expr-lang expressions type-checked against a fixed environment
// (the session's model, os, arch, headless, merged settings, env, which(name), lsp.servers,
// aft.found, aft.search and vision.resolved).
//
// A typo such as `model.provder` fails at compile time with the rune offset of the problem
// inside the expression, so `pigo check` can point at the byte inside the JSON string.
// Distinct expression texts are compiled once per process (a cache keyed by text).
package cond

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"

	"github.com/pigo-agent/pigo/internal/engines"
)

// Model is the session's model as a condition sees it. With no model every field is zero.
type Model struct {
	Provider      string   `expr:"provider"`
	ID            string   `expr:"id"`
	Reasoning     bool     `expr:"reasoning"`
	Input         []string `expr:"input"`
	ContextWindow int      `expr:"contextWindow"`
	MaxTokens     int      `expr:"maxTokens"`
}

// LSP lists the enabled language servers.
type LSP struct {
	Servers []string `expr:"servers"`
}

// AFT is what the seed's aft extension decides at session start.
type AFT struct {
	// Found: the aft binary was found (the seed's discovery order) and the user-level aft.jsonc
	// does not turn AFT off.
	Found bool `expr:"found"`
	// Search: aft.jsonc enables semantic_search with an external embedding backend.
	Search bool `expr:"search"`
}

// Vision is settings.visionConfig as the seed's vision-agent decides on it.
type Vision struct {
	// Resolved: visionConfig names a model, and its provider (or defaultProvider) and model
	// are known to models.json or the catalogue.
	Resolved bool `expr:"resolved"`
}

// Env is the typed environment conditions are compiled against and evaluated in.
type Env struct {
	Model    Model             `expr:"model"`
	OS       string            `expr:"os"`
	Arch     string            `expr:"arch"`
	Headless bool              `expr:"headless"`
	Settings map[string]any    `expr:"settings"`
	Env      map[string]string `expr:"env"`
	// Which reports whether a binary is on PATH; nil means nothing is (see LookPath).
	Which  func(name string) bool `expr:"which"`
	LSP    LSP                    `expr:"lsp"`
	AFT    AFT                    `expr:"aft"`
	Vision Vision                 `expr:"vision"`

	// lazy fills Settings and Env when a condition outside fast.go's subset is first
	// evaluated (see Lazy). Unexported: expr does not see it.
	lazy *lazyMaps
}

// lazyMaps is what Lazy defers: fill's maps, built once.
type lazyMaps struct {
	once     sync.Once
	fill     func() (map[string]any, map[string]string)
	settings map[string]any
	env      map[string]string
}

// Lazy has Settings and Env set from fill, called once, when a condition that can read them
// is first evaluated, instead of now: the conditions of fast.go's subset never read them,
// and building them (the merged settings through encoding/json, the whole process
// environment) was ~1.5% of `pigo tools` (docs/decisions/25-speed.md, D25.31). Copies of
// the Env share the one fill.
func (e *Env) Lazy(fill func() (settings map[string]any, env map[string]string)) {
	e.lazy = &lazyMaps{fill: fill}
}

// LookPath is a Which function backed by the real PATH; pigo's engines helper is found where
// pigo looks for it (internal/engines: $PIGO_ENGINES, beside pigo, then PATH).
func LookPath(name string) bool {
	if name == engines.Name {
		return engines.Installed()
	}
	_, err := exec.LookPath(name)
	return err == nil
}

// Program is one compiled condition.
type Program struct {
	src  string
	prog *vm.Program
	fast *fastNode // a condition in fast.go's subset: evaluated without expr (prog is nil)
}

// String returns the expression text.
func (p *Program) String() string { return p.src }

// Error is a condition that does not compile. Offset counts runes inside the expression text
// (0-based); Line and Column are expr's 1-based line and 0-based column.
type Error struct {
	Expr    string
	Offset  int
	Line    int
	Column  int
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("bad condition %q at offset %d: %s", e.Expr, e.Offset, e.Message)
}

type entry struct {
	p   *Program
	err error
}

var cache sync.Map // string → entry

// Compile type-checks src against Env, requiring a boolean result. Results (programs and
// errors) are cached by text, so each distinct expression is compiled once per process.
//
// A text being compiled by another goroutine (config.Prepare's, on the other core) is waited
// for rather than compiled twice.
func Compile(src string) (*Program, error) {
	if e, ok := cache.Load(src); ok {
		return e.(entry).p, e.(entry).err
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	if e, ok := cache.Load(src); ok {
		return e.(entry).p, e.(entry).err
	}
	p, err := compile(src)
	cache.Store(src, entry{p, err})
	return p, err
}

// compileMu serialises compiles that miss the cache (compileShared serialises them anyway).
var compileMu sync.Mutex

// MaxLen bounds the length of a condition. Real ones are a line; expr's parser recurses per
// nesting level and slows down super-linearly on long inputs (500k `!` took seconds).
const MaxLen = 4096

func compile(src string) (*Program, error) {
	if len(src) > MaxLen {
		return nil, &Error{Expr: src[:64] + "...", Offset: 0, Line: 1, Message: fmt.Sprintf("the condition is too long (%d bytes; at most %d)", len(src), MaxLen)}
	}
	if n := parseFast(src); n != nil {
		return &Program{src: src, fast: n}, nil
	}
	prog, err := compileShared(src)
	if err != nil {
		ce := &Error{Expr: src, Message: err.Error()}
		var fe *file.Error
		if errors.As(err, &fe) {
			ce.Message, ce.Line, ce.Column = fe.Message, fe.Line, fe.Column
			ce.Offset = runeOffset(src, fe.Line, fe.Column)
		}
		return nil, ce
	}
	return &Program{src: src, prog: prog}, nil
}

var (
	sharedMu   sync.Mutex
	sharedConf *conf.Config
)

// newConf is the configuration every condition compiles with: the Env type, a boolean
// result, expr's builtins.
func newConf() *conf.Config {
	c := conf.CreateNew()
	expr.Env(Env{})(c)
	expr.AsBool()(c)
	c.Check()
	return c
}

// compileShared does what expr.Compile(src, expr.Env(Env{}), expr.AsBool()) does — parse
// and type-check, optimise, compile — with one configuration for the process instead of a
// new one per expression: building it (the builtin table, the reflected Env type) was 58%
// of compiling the shipped conditions (446 of 766 µs for the seven). The checker only adds
// to the configuration's type cache, so compiles share it under a lock.
// TestSharedConfMatchesExpr compares both on valid and broken conditions.
func compileShared(src string) (*vm.Program, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedConf == nil {
		sharedConf = newConf()
	}
	tree, err := checker.ParseCheck(src, sharedConf)
	if err != nil {
		return nil, err
	}
	if sharedConf.Optimize {
		if err := optimizer.Optimize(&tree.Node, sharedConf); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, sharedConf)
}

// runeOffset turns expr's 1-based line and 0-based column into a rune offset in src.
func runeOffset(src string, line, col int) int {
	if line < 1 {
		line = 1
	}
	n, l := 0, 1
	for _, r := range src {
		if l == line {
			break
		}
		n++
		if r == '\n' {
			l++
		}
	}
	total := len([]rune(src))
	return min(n+max(col, 0), total)
}

func never(string) bool { return false }

// Budget is the evaluation budget of one condition, in expr's memory units (about one per
// element of a range, array or string it builds). A condition needs a handful; without a
// tight bound an extension from an untrusted project could loop over huge ranges (expr's
// default of a million units takes most of a second per condition, and a file can declare
// thousands). Over budget, the evaluation stops with an error.
const Budget = 10_000

// Eval runs a compiled condition in env. A runtime failure (such as indexing a missing
// setting) is an error, never a panic.
func Eval(p *Program, env Env) (ok bool, err error) {
	if p == nil {
		return false, errors.New("no program")
	}
	if env.Which == nil {
		env.Which = never
	}
	if p.fast != nil {
		return p.fast.eval(&env).b, nil
	}
	if l := env.lazy; l != nil {
		l.once.Do(func() { l.settings, l.env = l.fill() })
		env.Settings, env.Env = l.settings, l.env
	}
	defer func() {
		if r := recover(); r != nil {
			ok, err = false, fmt.Errorf("condition %q: %v", p.src, r)
		}
	}()
	machine := vm.VM{MemoryBudget: Budget}
	out, err := machine.Run(p.prog, env)
	if err != nil {
		if strings.Contains(err.Error(), "memory budget exceeded") {
			return false, fmt.Errorf("condition %q exceeds its evaluation budget (%d units): it builds too large a range, array or string", p.src, Budget)
		}
		return false, err
	}
	b, isBool := out.(bool)
	if !isBool {
		return false, fmt.Errorf("condition %q is not a boolean", p.src)
	}
	return b, nil
}

// AsBool compiles and evaluates src in one call (through the cache).
func AsBool(src string, env Env) (bool, error) {
	p, err := Compile(src)
	if err != nil {
		return false, err
	}
	return Eval(p, env)
}
