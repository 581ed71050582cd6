package engine

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pattern"
)

// DefaultBuiltinTools is the built-in selection when settings.defaultTools is unset.
var DefaultBuiltinTools = []string{"read", "bash", "edit", "write"}

// The fixed guideline lines of pi's default system prompt.
const (
	bashFileOpsGuideline = "Use bash for file operations like ls, rg, find"
	conciseGuideline     = "Be concise in your responses"
	pathsGuideline       = "Show file paths clearly when working with files"
)

// decl is one declaration being resolved.
type decl struct {
	t       *Tool
	ext     *Extension
	extIdx  int
	builtin bool
	state   State
	reason  string
	rule    *RuleRef
	steps   []Step
	// winner is true for the one available declaration that owns its name.
	winner bool
	// overrides is the built-in this extension tool replaced (nil if none).
	overrides *decl
	// ruleOff is an unavailable declaration that disabledTools would also disable.
	ruleOff bool
}

func (d *decl) set(s State, reason string, rule *RuleRef) {
	d.state, d.reason, d.rule = s, reason, rule
}

func (d *decl) step(name, outcome string, rule *RuleRef) {
	if d.steps == nil {
		d.steps = make([]Step, 0, len(stepOrder))
	}
	d.steps = append(d.steps, Step{Step: name, Outcome: outcome, Rule: rule})
}

// compiledRule is a Rule with compiled patterns; applies says whether its models and condition
// hold for this session.
type compiledRule struct {
	r       *Rule
	tools   []*pattern.Pattern // nil entries for bad patterns
	applies bool
}

// ruleSet indexes one field's rules: literal tool patterns by name, the rest in order.
type ruleSet struct {
	rules   []compiledRule
	literal map[string][]patRef
	globs   []patRef
}

type patRef struct {
	rule, pat int
}

type resolver struct {
	in    *Input
	env   cond.Env
	model *pattern.Model
	diags diag.List
	decls []*decl
	// whens caches the value of each condition that evaluated cleanly: one session has one
	// environment, and many tools share a condition (the 18 GitHub tools).
	whens map[string]whenResult
}

type whenResult struct {
	ok  bool
	why string
}

// Resolve runs D9 for one session start. It never fails: problems become warnings (and the
// affected declaration or rule is skipped), in the order they arise.
func Resolve(in *Input) *Result {
	r := &resolver{in: in, env: in.Env}
	r.env.Model = cond.Model{}
	if m := in.Model; m != nil {
		r.model = &pattern.Model{Provider: m.Provider, ID: m.ID}
		r.env.Model = cond.Model{Provider: m.Provider, ID: m.ID, Reasoning: m.Reasoning, Input: m.Input,
			ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}
	}
	res := &Result{}
	if in.Model != nil {
		res.Model = &ModelRef{Provider: in.Model.Provider, ID: in.Model.ID}
	}

	// One allocation for all declarations and one for all their explain steps.
	n := 0
	for i := range in.Extensions {
		n += len(in.Extensions[i].Tools)
	}
	decls := make([]decl, 0, n)
	steps := make([]Step, n*len(stepOrder))
	r.decls = make([]*decl, 0, n)
	for i := range in.Extensions {
		e := &in.Extensions[i]
		for j := range e.Tools {
			k := len(decls)
			decls = append(decls, decl{t: &e.Tools[j], ext: e, extIdx: i, builtin: e.Source.Kind == KindBuiltin,
				steps: steps[k*len(stepOrder) : k*len(stepOrder) : (k+1)*len(stepOrder)]})
			r.decls = append(r.decls, &decls[k])
		}
	}

	fileIO, fileIORule := r.selectFileIO()
	res.FileIO = fileIO
	r.availability(fileIO, fileIORule)
	winners := r.collect()
	r.personal(winners)
	active := r.selection(winners)

	// Output.
	res.Tools = make([]ToolResult, 0, len(r.decls))
	for _, d := range r.decls {
		res.Tools = append(res.Tools, ToolResult{
			Name: d.t.Name, State: d.state, Source: d.ext.Source.String(), File: d.ext.Source.File,
			Line: d.ext.Source.Line, Column: d.ext.Source.Column,
			Unit: d.t.Unit, Structured: d.t.Structured, PromptSnippet: strings.TrimSpace(d.t.PromptSnippet) != "", // collapse(...) != ""
			Reason: d.reason, Rule: d.rule, RuleDisabled: d.state == Disabled || d.ruleOff,
		})
	}
	res.decls = r.decls // explain traces are assembled on demand
	res.Active = make([]string, 0, len(active))
	for _, d := range active {
		res.Active = append(res.Active, d.t.Name)
	}
	res.CodemodeOnly, res.CodemodeCallable = []string{}, []string{}
	for _, d := range winners {
		if d.state == CodemodeOnly {
			res.CodemodeOnly = append(res.CodemodeOnly, d.t.Name)
		}
		if d.t.Structured && (d.state == Active || d.state == CodemodeOnly) {
			res.CodemodeCallable = append(res.CodemodeCallable, d.t.Name)
		}
	}
	res.SystemPrompt = systemPrompt(active)
	res.Diagnostics = r.diags
	res.Warnings = make([]Warning, 0, len(r.diags))
	for _, dg := range r.diags {
		w := Warning{Code: dg.Code, Message: dg.Message, File: dg.File(), Hint: dg.Hint}
		w.Line, w.Column = dg.Pos()
		res.Warnings = append(res.Warnings, w)
	}
	return res
}

// Explain returns the steps for one tool name: the declaration that owns the name when there
// is one, else the first declaration of that name. ok is false for an unknown name.
func (res *Result) Explain(name string) (ExplainResult, bool) {
	first := -1
	for i, t := range res.Tools {
		if t.Name != name {
			continue
		}
		if first < 0 {
			first = i
		}
		if t.State != Overridden && t.State != Unavailable {
			return res.explainAt(i), true
		}
	}
	if first < 0 {
		return ExplainResult{}, false
	}
	return res.explainAt(first), true
}

// Declaration returns the declaration behind registry row i (res.Tools[i]), nil when i is out
// of range. The runtime reads its schemas and exec template from it.
func (res *Result) Declaration(i int) *Tool {
	if i < 0 || i >= len(res.decls) {
		return nil
	}
	return res.decls[i].t
}

// ExplainAll returns the steps of every declaration, in registry order.
func (res *Result) ExplainAll() []ExplainResult {
	out := make([]ExplainResult, len(res.decls))
	for i := range res.decls {
		out[i] = res.explainAt(i)
	}
	return out
}

func (res *Result) explainAt(i int) ExplainResult {
	d := res.decls[i]
	return ExplainResult{Tool: d.t.Name, Source: d.ext.Source.String(), State: d.state, Steps: orderSteps(d)}
}

func (r *resolver) warn(sp diag.Span, code, path, msg string) {
	r.diags.Add(sp, diag.Warning, code, path, msg)
}

func ruleRef(sp diag.Span, text string) *RuleRef {
	l, c := spanPos(sp)
	return &RuleRef{File: sp.File(), Line: l, Column: c, Text: text}
}

// spanPos is sp.Pos(). Near the start of a source (the shipped declarations' rules are in
// files of 3-24 KB) it counts the lines before the span instead of having the source index
// every line of its text, which a resolution did for each shipped file it cited (0.13 M
// instructions of pigo tools, and the index's memory); further on, the index answers.
func spanPos(sp diag.Span) (line, col int) {
	if !sp.HasPos() || sp.Start > 32<<10 {
		return sp.Pos()
	}
	head := sp.Src.Text[:min(sp.Start, len(sp.Src.Text))]
	return 1 + bytes.Count(head, []byte{'\n'}), len(head) - bytes.LastIndexByte(head, '\n')
}

// inString returns the span of byte off inside a JSON string whose span starts at its
// opening quote (escapes before off are not accounted for).
func inString(sp diag.Span, text string, off int) diag.Span {
	if !sp.HasPos() || sp.Src.Text == nil {
		return sp
	}
	// Map the byte offset inside the decoded string through the literal's escapes.
	runes := utf8.RuneCountInString(text[:min(off, len(text))])
	at := jsonc.StringOffset(sp.Src.Text, &jsonc.Node{Kind: jsonc.String, Start: sp.Start, End: sp.End}, runes)
	return diag.At(sp.Src, at, at+1)
}

// compilePatterns compiles patterns; a bad one is reported (bad-glob) and left nil.
func (r *resolver) compilePatterns(ps []Pattern, path string) []*pattern.Pattern {
	out := make([]*pattern.Pattern, len(ps))
	for i, p := range ps {
		cp, err := compileCached(p.Text)
		if err != nil {
			var pe *pattern.Error
			sp := p.Span
			msg := err.Error()
			if errors.As(err, &pe) {
				sp = inString(p.Span, p.Text, pe.Offset)
				msg = fmt.Sprintf("bad pattern %q: %s", p.Text, pe.Reason)
			}
			r.diags.Add(sp, diag.Error, "bad-glob", path, msg)
			continue
		}
		out[i] = cp
	}
	return out
}

type compiled struct {
	p   *pattern.Pattern
	err error
}

// patterns caches compiled patterns by text for the life of the process, so that repeated
// resolutions (the TUI, benchmarks) compile each distinct pattern once.
var patterns sync.Map

func compileCached(text string) (*pattern.Pattern, error) {
	if c, ok := patterns.Load(text); ok {
		return c.(compiled).p, c.(compiled).err
	}
	p, err := pattern.Compile(text)
	patterns.Store(text, compiled{p, err})
	return p, err
}

func (r *resolver) modelsMatch(ps []*pattern.Pattern, n int) bool {
	if n == 0 {
		return true
	}
	live := ps[:0:0]
	for _, p := range ps {
		if p != nil {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return false // every pattern was bad: match nothing rather than everything
	}
	return pattern.MatchModel(live, r.model)
}

// evalWhen evaluates a condition; ok is false when it is false or broken (then a warning is
// recorded). why is the reason text.
func (r *resolver) evalWhen(src string, sp diag.Span, path string) (ok bool, why string) {
	if w, hit := r.whens[src]; hit {
		return w.ok, w.why
	}
	p, err := cond.Compile(src)
	if err != nil {
		var ce *cond.Error
		at := sp
		msg := err.Error()
		if errors.As(err, &ce) {
			at = inString(sp, src, len(string([]rune(src)[:min(ce.Offset, len([]rune(src)))])))
			friendly, _ := cond.Friendly(ce.Message)
			msg = fmt.Sprintf("condition %s does not compile: %s", quoteExpr(src), friendly)
		}
		r.warn(at, "bad-expr", path, msg)
		return false, fmt.Sprintf("condition %s does not compile", quoteExpr(src))
	}
	v, err := cond.Eval(p, r.env)
	if err != nil {
		r.warn(sp, "bad-expr", path, fmt.Sprintf("condition %s failed: %v", quoteExpr(src), err))
		return false, fmt.Sprintf("condition %s failed: %v", quoteExpr(src), err)
	}
	w := whenResult{ok: v, why: fmt.Sprintf("condition %s is %v", quoteExpr(src), v)}
	if r.whens == nil {
		r.whens = map[string]whenResult{}
	}
	r.whens[src] = w
	return w.ok, w.why
}

// selectFileIO is step 3's choice: the first fileIoByModel entry whose models match, else
// fileIo, else claude-code.
func (r *resolver) selectFileIO() (string, *RuleRef) {
	p := &r.in.Personal
	for i := range p.FileIOByModel {
		e := &p.FileIOByModel[i]
		path := fmt.Sprintf("personalExtensions.fileIoByModel[%d]", e.Index)
		ms := r.compilePatterns(e.Models, path+".models")
		if r.modelsMatch(ms, len(e.Models)) {
			text := "fileIoByModel[" + fmt.Sprint(e.Index) + "]"
			if len(e.Models) > 0 {
				text = e.Models[0].Text
				for _, m := range e.Models[1:] {
					text += ", " + m.Text
				}
			}
			return e.FileIO, ruleRef(e.Span, text+" → "+e.FileIO)
		}
	}
	if p.FileIO != "" {
		return p.FileIO, ruleRef(p.FileIOSpan, "fileIo: "+p.FileIO)
	}
	return FileIOClaudeCode, nil
}

// availability is steps 3 and 2 per declaration: the file toolset first (a tool of the other
// set is not loaded at all, so its condition is not evaluated), then its `when` condition.
func (r *resolver) availability(fileIO string, fileIORule *RuleRef) {
	for _, d := range r.decls {
		t := d.t
		switch {
		case t.FileIO == "":
			d.step("file-io", "not a file tool", nil)
		case t.FileIO != fileIO:
			reason := "file toolset is " + fileIO
			d.step("file-io", reason+"; tool belongs to "+t.FileIO, fileIORule)
			d.set(Unavailable, reason, fileIORule)
			d.step("condition", "skipped: tool is unavailable", nil)
			continue
		default:
			d.step("file-io", "file toolset is "+fileIO, fileIORule)
		}
		if t.When == "" {
			d.step("condition", "no condition", nil)
			continue
		}
		ok, why := r.evalWhen(t.When, t.WhenSpan, "tools."+t.Name+".when")
		ref := ruleRef(t.WhenSpan, t.When)
		d.step("condition", why, ref)
		if !ok {
			d.set(Unavailable, why, ref)
		}
	}
}

// collect is step 1 over the available declarations: the first extension to declare a name
// wins; an extension tool replaces a built-in of the same name.
func (r *resolver) collect() []*decl {
	owner := map[string]*decl{}
	var order []*decl
	for _, d := range r.decls {
		if d.state == Unavailable {
			continue
		}
		name := d.t.Name
		cur := owner[name]
		switch {
		case cur == nil:
			owner[name] = d
			order = append(order, d)
		case cur.builtin && d.builtin:
			// A built-in declared twice: the later definition replaces the earlier one.
			r.lose(cur, d, "built-in redeclared")
			r.swap(owner, &order, cur, d)
		case cur.builtin:
			r.lose(cur, d, "replaced by "+d.ext.Source.String()+" ("+d.ext.Source.File+")")
			d.overrides = cur
			if !d.ext.OverridesBuiltins {
				r.warn(d.t.Span, "builtin-override", "",
					fmt.Sprintf("tool %q from %s replaces the built-in %q", name, fileOr(d.ext), name))
			}
			r.swap(owner, &order, cur, d)
		case cur.extIdx == d.extIdx:
			// Inside one extension a later registration overwrites the earlier one (pi).
			r.lose(cur, d, "redeclared later in the same file")
			d.overrides = cur.overrides
			r.swap(owner, &order, cur, d)
		default:
			r.lose(d, cur, fmt.Sprintf("%q is already declared by %s (first wins)", name, fileOr(cur.ext)))
			r.warn(d.t.Span, "tool-conflict", "",
				fmt.Sprintf("tool %q in %s conflicts with %s; the first one wins", name, fileOr(d.ext), fileOr(cur.ext)))
		}
	}
	for _, d := range order {
		d.winner = true
		if d.overrides != nil {
			d.step("override", "replaces the built-in \""+d.t.Name+"\"", nil)
		} else {
			d.step("override", "no other declaration of \""+d.t.Name+"\" wins over this one", nil)
		}
	}
	return order
}

func fileOr(e *Extension) string {
	if e.Source.File != "" {
		return e.Source.File
	}
	return e.Source.String()
}

func (r *resolver) lose(loser, winner *decl, reason string) {
	loser.set(Overridden, reason, nil)
	loser.step("override", "overridden: "+reason, nil)
	_ = winner
}

// swap puts d in cur's place in the registry order (pi keeps a name's first position).
func (r *resolver) swap(owner map[string]*decl, order *[]*decl, cur, d *decl) {
	owner[d.t.Name] = d
	i := slices.Index(*order, cur)
	(*order)[i] = d
}

func (r *resolver) compileRules(rules []Rule) *ruleSet {
	rs := &ruleSet{literal: map[string][]patRef{}}
	for i := range rules {
		ru := &rules[i]
		path := fmt.Sprintf("personalExtensions.%s[%d]", ru.Field, ru.Index)
		c := compiledRule{r: ru, tools: r.compilePatterns(ru.Tools, path+".tools")}
		ms := r.compilePatterns(ru.Models, path+".models")
		c.applies = r.modelsMatch(ms, len(ru.Models))
		if c.applies && ru.When != "" {
			c.applies, _ = r.evalWhen(ru.When, ru.WhenSpan, path+".when")
		}
		for j, p := range c.tools {
			if p == nil {
				continue
			}
			if isLiteral(ru.Tools[j].Text) {
				rs.literal[ru.Tools[j].Text] = append(rs.literal[ru.Tools[j].Text], patRef{i, j})
			} else {
				rs.globs = append(rs.globs, patRef{i, j})
			}
		}
		rs.rules = append(rs.rules, c)
	}
	return rs
}

// isLiteral reports whether a pattern matches exactly its own text.
func isLiteral(s string) bool {
	return s != "" && !strings.ContainsAny(s, `*?[]{}\!#`)
}

// match returns the first (in rule order) applying rule pattern that matches name.
func (rs *ruleSet) match(name string) (patRef, bool) {
	best, found := patRef{}, false
	better := func(p patRef) bool {
		return !found || p.rule < best.rule || (p.rule == best.rule && p.pat < best.pat)
	}
	for _, p := range rs.literal[name] {
		if rs.rules[p.rule].applies && better(p) {
			best, found = p, true
		}
	}
	for _, p := range rs.globs {
		if found && p.rule > best.rule {
			break
		}
		if rs.rules[p.rule].applies && rs.rules[p.rule].tools[p.pat].Match(name) && better(p) {
			best, found = p, true
		}
	}
	return best, found
}

func (rs *ruleSet) ref(p patRef) *RuleRef {
	pt := rs.rules[p.rule].r.Tools[p.pat]
	return ruleRef(pt.Span, pt.Text)
}

// personal is step 4: disabledTools / enabledTools / codemodeOnlyTools, then unmatched patterns.
func (r *resolver) personal(winners []*decl) {
	p := &r.in.Personal
	dis := r.compileRules(p.DisabledTools)
	en := r.compileRules(p.EnabledTools)
	cm := r.compileRules(p.CodemodeOnlyTools)
	warned := map[string]bool{}
	for _, d := range r.decls {
		if d.state == Unavailable {
			_, isDis := dis.match(d.t.Name)
			_, isEn := en.match(d.t.Name)
			d.ruleOff = isDis && !isEn
		}
	}
	for _, d := range winners {
		name := d.t.Name
		dm, isDis := dis.match(name)
		em, isEn := en.match(name)
		if isDis {
			d.step("disabled", "matched by disabledTools", dis.ref(dm))
		} else {
			d.step("disabled", "no rule matched", nil)
		}
		if isEn {
			d.step("enabled", "matched by enabledTools", en.ref(em))
		} else {
			d.step("enabled", "no rule matched", nil)
		}
		cmm, isCm := cm.match(name)
		var cmRef *RuleRef
		if isCm {
			cmRef = cm.ref(cmm)
		}
		if isDis && !isEn {
			d.set(Disabled, "disabled by personalExtensions.disabledTools", dis.ref(dm))
			d.step("codemode-only", "skipped: tool is disabled", nil)
			continue
		}
		if isDis && isEn {
			d.steps[len(d.steps)-1].Outcome = "matched by enabledTools: exempt from disabledTools"
		}
		switch {
		case !isCm && !d.t.CodemodeOnly:
			d.step("codemode-only", "no rule matched", nil)
		case !d.t.Structured:
			d.step("codemode-only", "declares no structured output: stays directly available", cmRef)
			if !warned[name] {
				warned[name] = true
				if isCm {
					pt := cm.rules[cmm.rule].r.Tools[cmm.pat]
					r.warn(pt.Span, "no-structured-output", "personalExtensions.codemodeOnlyTools",
						fmt.Sprintf("personalExtensions.codemodeOnlyTools: tool %q declares no structuredSchema; it stays directly available.", name))
				} else {
					r.warn(d.t.Span, "no-structured-output", "",
						fmt.Sprintf("tool %q is declared codemodeOnly but declares no structured output; it stays directly available.", name))
				}
			}
		case isCm:
			d.step("codemode-only", "matched by codemodeOnlyTools", cmRef)
			d.set(CodemodeOnly, "codemode-only by personalExtensions.codemodeOnlyTools", cmRef)
		default:
			d.step("codemode-only", "declared codemode-only", nil)
			d.set(CodemodeOnly, "declared codemode-only", nil)
		}
	}

	// Unmatched patterns: against every declared name (disabled tools included).
	names := make(map[string]bool, len(winners))
	list := make([]string, 0, len(winners))
	for _, d := range winners {
		if !names[d.t.Name] {
			names[d.t.Name] = true
			list = append(list, d.t.Name)
		}
	}
	for _, rs := range []*ruleSet{dis, en, cm} {
		for _, c := range rs.rules {
			for j, pt := range c.r.Tools {
				cp := c.tools[j]
				if cp == nil {
					continue // already reported as bad-glob
				}
				if isLiteral(pt.Text) {
					if names[pt.Text] {
						continue
					}
				} else if slices.ContainsFunc(list, cp.Match) {
					continue
				}
				r.warn(pt.Span, "unmatched-pattern", "personalExtensions."+c.r.Field,
					fmt.Sprintf("personalExtensions.%s: pattern %q matches no tool", c.r.Field, pt.Text))
				r.diags[len(r.diags)-1].Hint = r.unavailableHint(cp.Match)
			}
		}
	}
}

// unavailableHint explains an unmatched pattern that does match declared tools which are not
// available in this session (their condition is false, or they belong to the other file
// toolset): the seed does not count them, but the user should know they exist.
func (r *resolver) unavailableHint(match func(string) bool) string {
	var names []string
	why := ""
	for _, d := range r.decls {
		if d.state == Unavailable && match(d.t.Name) && !slices.Contains(names, d.t.Name) {
			names = append(names, d.t.Name)
			if why == "" {
				why = d.reason
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	return fmt.Sprintf("it matches tools that are unavailable in this session (%s: %s)", strings.Join(names, ", "), why)
}

// selection is step 5, pi's initial selection (host-behaviour §2.3), and returns the active
// list in order. The built-in entry decides the active state of a name an extension overrides.
func (r *resolver) selection(winners []*decl) []*decl {
	f := &r.in.Flags
	var allow *nameMatcher
	var allowOrder []string
	allowWhy := ""
	// pi 1.x: once an entry of --tools starts with "mcp__" (or --tools is empty), it filters MCP
	// tools too; otherwise they stay, reachable as their exposure says.
	filtersMCP := false
	if f.Tools != nil {
		allow, allowWhy = newNameMatcher(f.Tools), "not in --tools"
		allowOrder = allow.order
		filtersMCP = len(f.Tools) == 0 || slices.ContainsFunc(f.Tools, func(n string) bool { return strings.HasPrefix(n, "mcp__") })
	}
	if f.AgentTools != nil {
		agent := newNameMatcher(f.AgentTools)
		why := "not in the tools of agent " + quoteOr(f.AgentName)
		agentFilters := len(f.AgentTools) == 0 || slices.ContainsFunc(f.AgentTools, func(n string) bool { return strings.HasPrefix(n, "mcp__") })
		if allow == nil {
			allow, allowWhy, allowOrder, filtersMCP = agent, why, agent.order, agentFilters
		} else {
			allowOrder = slices.DeleteFunc(allowOrder, func(n string) bool { return !agent.has(n) })
			allow = allow.and(agent)
			allowWhy = "not in both --tools and the tools of agent " + quoteOr(f.AgentName)
			filtersMCP = filtersMCP || agentFilters
		}
	}
	if allow == nil && f.NoTools {
		allow, allowWhy, filtersMCP = newNameMatcher(nil), "--no-tools", true
	}
	exclude := newNameMatcher(f.ExcludeTools)
	exposed := func(n string) (bool, string) {
		if allow != nil && !allow.has(n) {
			return false, allowWhy
		}
		if exclude.has(n) {
			return false, "--exclude-tools"
		}
		return true, ""
	}
	mcpActive := r.mcpSelection(winners, allow, exclude, allowWhy, filtersMCP)

	// The initial list of names and why a built-in is (not) in it.
	var initial []string
	var defRef *RuleRef
	initWhy := ""
	switch {
	case allow != nil:
		initial, initWhy = allowOrder, "listed in --tools"
		if f.Tools == nil {
			initWhy = "listed in the tools of agent " + quoteOr(f.AgentName)
		}
	case f.NoTools || f.NoBuiltinTools:
		initWhy = "--no-builtin-tools"
	case r.in.DefaultTools != nil:
		initial, initWhy = r.in.DefaultTools, "settings defaultTools"
		defRef = ruleRef(r.in.DefaultToolsSpan, "defaultTools")
	default:
		initial, initWhy = DefaultBuiltinTools, "default built-in selection (read, bash, edit, write)"
	}
	inInitial := map[string]bool{}
	for _, n := range initial {
		if !exclude.has(n) {
			inInitial[n] = true
		}
	}

	byName := map[string]*decl{}
	for _, d := range winners {
		byName[d.t.Name] = d
	}
	onPi := func(d *decl) bool { return d != nil && d.state == "" }
	var active []*decl
	added := map[string]bool{}
	add := func(d *decl) {
		if !added[d.t.Name] {
			added[d.t.Name] = true
			active = append(active, d)
		}
	}
	for _, n := range initial {
		if d := byName[n]; onPi(d) && inInitial[n] {
			if ok, _ := exposed(n); ok {
				add(d)
			}
		}
	}
	for _, d := range winners {
		if !onPi(d) {
			continue
		}
		if ok, _ := exposed(d.t.Name); !ok {
			continue
		}
		if allow != nil {
			if allow.has(d.t.Name) {
				add(d)
			}
		} else if !d.builtin && d.overrides == nil {
			add(d)
		}
	}

	for _, d := range winners {
		if !onPi(d) {
			continue
		}
		name := d.t.Name
		if ok, why := exposed(name); !ok {
			d.step("selection", "excluded: "+why, nil)
			d.set(Excluded, why, nil)
			continue
		}
		if added[name] {
			var why string
			switch {
			case allow != nil || d.builtin:
				why = initWhy
			case d.overrides != nil:
				why = "the built-in \"" + name + "\" it replaces is active (" + initWhy + ")"
			default:
				why = "extension tools start active"
			}
			ref := defRef
			if allow != nil || (!d.builtin && d.overrides == nil) {
				ref = nil
			}
			d.step("selection", "active: "+why, ref)
			d.set(Active, why, ref)
			continue
		}
		var why string
		switch {
		case allow != nil:
			why = "not selected"
		case f.NoTools || f.NoBuiltinTools:
			why = "--no-builtin-tools"
		case r.in.DefaultTools != nil:
			why = "not in settings defaultTools"
		default:
			why = "not in the default built-in selection (read, bash, edit, write)"
		}
		if d.overrides != nil {
			why = "the built-in \"" + name + "\" it replaces is inactive: " + why
		}
		d.step("selection", "inactive: "+why, defRef)
		d.set(Inactive, why, defRef)
	}
	active = r.activate(active, byName)
	for _, d := range mcpActive {
		add(d)
	}
	r.warnUnreachable(byName)
	return active
}

// nameMatcher matches tool names against --tools / --exclude-tools entries: exact names, or
// patterns where "*" matches any characters (pi 1.x).
type nameMatcher struct {
	names    map[string]bool
	patterns []string
	// order is the plain names in the order given, each once.
	order []string
	// both, when set, makes the matcher the intersection of two (a sub-agent's tools within
	// --tools).
	both []*nameMatcher
}

func newNameMatcher(entries []string) *nameMatcher {
	m := &nameMatcher{names: map[string]bool{}}
	for _, e := range entries {
		if strings.Contains(e, "*") {
			m.patterns = append(m.patterns, e)
			continue
		}
		if !m.names[e] {
			m.names[e] = true
			m.order = append(m.order, e)
		}
	}
	return m
}

func (m *nameMatcher) has(name string) bool {
	if m == nil {
		return false
	}
	if m.both != nil {
		return m.both[0].has(name) && m.both[1].has(name)
	}
	if m.names[name] {
		return true
	}
	for _, p := range m.patterns {
		if pattern.MatchStar(p, name) {
			return true
		}
	}
	return false
}

// and is the intersection of two matchers.
func (m *nameMatcher) and(o *nameMatcher) *nameMatcher {
	out := &nameMatcher{both: []*nameMatcher{m, o}}
	for _, n := range append(append([]string{}, m.order...), o.order...) {
		if m.has(n) && o.has(n) && !slices.Contains(out.order, n) {
			out.order = append(out.order, n)
		}
	}
	return out
}

func quoteOr(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return fmt.Sprintf("%q", name)
}

// collapse trims a snippet and folds its runs of whitespace into one space.
func collapse(s string) string {
	// Most snippets are already collapsed (ASCII words between single spaces): they are returned
	// as they are, without Fields' slice and Join's copy (77 of each in a resolution).
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c <= ' ' && (c != ' ' || i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

// systemPrompt builds the tools section and guidelines of pi's default prompt (§3.3).
func systemPrompt(active []*decl) SystemPrompt {
	sp := SystemPrompt{Tools: []string{}, Guidelines: []string{}}
	names := map[string]bool{}
	for _, d := range active {
		names[d.t.Name] = true
		if s := collapse(d.t.PromptSnippet); s != "" {
			sp.Tools = append(sp.Tools, "- "+d.t.Name+": "+s)
		}
	}
	if len(sp.Tools) == 0 {
		sp.Tools = append(sp.Tools, "(none)")
	}
	seen := map[string]bool{}
	add := func(g string) {
		g = strings.TrimSpace(g)
		if g != "" && !seen[g] {
			seen[g] = true
			sp.Guidelines = append(sp.Guidelines, g)
		}
	}
	if names["bash"] && !names["grep"] && !names["find"] && !names["ls"] {
		add(bashFileOpsGuideline)
	}
	for _, d := range active {
		for _, g := range d.t.PromptGuidelines {
			add(g)
		}
	}
	add(conciseGuideline)
	add(pathsGuideline)
	return sp
}

// stepOrder is the order explain lists the steps in.
var stepOrder = []string{"file-io", "condition", "disabled", "enabled", "codemode-only", "selection", "override"}

// orderSteps returns d's steps in stepOrder, with a "skipped" entry for each step that was
// never reached.
func orderSteps(d *decl) []Step {
	out := make([]Step, 0, len(stepOrder))
	for _, name := range stepOrder {
		i := slices.IndexFunc(d.steps, func(s Step) bool { return s.Step == name })
		if i < 0 {
			out = append(out, Step{Step: name, Outcome: "skipped: tool is " + string(d.state)})
			continue
		}
		out = append(out, d.steps[i])
	}
	return out
}

// quoteExpr shows a condition in a reason: in backquotes, which read better than %q for
// expressions full of double quotes, unless it holds a backquote itself.
func quoteExpr(src string) string {
	if strings.Contains(src, "`") {
		return strconv.Quote(src)
	}
	return "`" + src + "`"
}
