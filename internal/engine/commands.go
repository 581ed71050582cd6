package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/diag"
)

// ExtCommand is a slash command declared by an extension.
type ExtCommand struct {
	Name         string
	Description  string
	ArgumentHint string
	// When is an optional availability condition; a false one leaves the command unregistered.
	When     string
	WhenSpan diag.Span
	Span     diag.Span
	// Prompt is the text a declarative command sends (its arguments expand as in templates);
	// Run is the argv it runs instead. At most one is set.
	Prompt string
	Run    []string
}

// Command match modes of built-in commands.
const (
	MatchExact = "exact" // only the bare `/name`
	MatchArgs  = "args"  // `/name` or `/name <args>`
)

// BuiltinCommand is one of pi's interactive commands, in table order.
type BuiltinCommand struct {
	Name         string
	ArgumentHint string
	Description  string
	Match        string
	// Hidden commands run but are never autocompleted (/debug …).
	Hidden bool
}

// PromptTemplate is one prompts/*.md file, in discovery order.
type PromptTemplate struct {
	Name         string
	Description  string
	ArgumentHint string
	File         string
	Scope        Scope
	// Package is the source tag of the pi package it comes from ("npm:x", "git:host/path"),
	// "" for the agent dir's and the project's own templates.
	Package string
	Span    diag.Span
}

// Skill is one discovered skill, in discovery order.
type Skill struct {
	Name        string
	Description string
	File        string
	Scope       Scope
	// Package is the source tag of the pi package it comes from ("" when none).
	Package string
	Span    diag.Span
}

// CommandInput is everything command resolution needs.
type CommandInput struct {
	Builtins []BuiltinCommand
	Prompts  []PromptTemplate
	// Extensions in load order; only their Commands are read.
	Extensions          []Extension
	Skills              []Skill
	EnableSkillCommands bool
	Model               *Model
	Env                 cond.Env
}

// AutocompleteItem is one row of the slash menu.
type AutocompleteItem struct {
	Name         string `json:"name"`
	Source       string `json:"source"`
	Tag          string `json:"tag"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint"`
}

// CommandEntry is one invocable command.
type CommandEntry struct {
	Invocation string `json:"invocation"`
	Name       string `json:"name"`
	Source     string `json:"source"`
	Scope      Scope  `json:"scope"`
	File       string `json:"file,omitempty"`
	// Package is the pi package the skill or template comes from.
	Package string `json:"package,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Prompt and Run are an extension command's declared action (not part of the JSON).
	Prompt string   `json:"-"`
	Run    []string `json:"-"`
}

// CommandResult is the resolved command set (cli.md `pigo commands`).
type CommandResult struct {
	// Autocomplete is the slash menu in order.
	Autocomplete []AutocompleteItem `json:"autocomplete"`
	// Commands are in execution-lookup order: built-in > extension > skill > prompt template.
	Commands []CommandEntry `json:"commands"`
	// Unavailable are extension commands whose condition is false (not registered).
	Unavailable []CommandEntry `json:"unavailable"`
	Warnings    []Warning      `json:"warnings"`
	Diagnostics diag.List      `json:"-"`
}

// PackageTag returns the autocomplete source tag of a resource from a package: "[u:npm:x]"
// (pi's getAutocompleteSourceTag), or Tag(s) when pkg is "".
func PackageTag(s Scope, pkg string) string {
	if pkg == "" {
		return Tag(s)
	}
	return strings.TrimSuffix(Tag(s), "]") + ":" + pkg + "]"
}

// Tag returns the autocomplete source tag for a scope: "[u]", "[p]" or "[t]".
func Tag(s Scope) string {
	switch s {
	case ScopeUser:
		return "[u]"
	case ScopeProject:
		return "[p]"
	}
	return "[t]"
}

func extScope(e *Extension) Scope {
	if e.Source.Scope != "" {
		return e.Source.Scope
	}
	return ScopeTemporary
}

// ResolveCommands resolves slash commands (D9 end, host-behaviour §4).
func ResolveCommands(in *CommandInput) *CommandResult {
	r := &resolver{in: &Input{}, env: in.Env}
	if m := in.Model; m != nil {
		r.env.Model = cond.Model{Provider: m.Provider, ID: m.ID, Reasoning: m.Reasoning, Input: m.Input,
			ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}
	} else {
		r.env.Model = cond.Model{}
	}
	res := &CommandResult{Autocomplete: []AutocompleteItem{}, Commands: []CommandEntry{}, Unavailable: []CommandEntry{}}

	builtin := map[string]bool{}
	for _, b := range in.Builtins {
		builtin[b.Name] = true
		res.Commands = append(res.Commands, CommandEntry{Invocation: b.Name, Name: b.Name, Source: "builtin", Scope: ScopeTemporary})
		if !b.Hidden {
			res.Autocomplete = append(res.Autocomplete, AutocompleteItem{Name: b.Name, Source: "builtin",
				Description: b.Description, ArgumentHint: b.ArgumentHint})
		}
	}

	// Extension commands: one per name per extension (a later one overwrites, keeping the
	// first position), conditions evaluated, then k-th duplicates suffixed `name:k`.
	type extCmd struct {
		c   *ExtCommand
		ext *Extension
	}
	var cmds []extCmd
	for i := range in.Extensions {
		e := &in.Extensions[i]
		pos := map[string]int{}
		for j := range e.Commands {
			c := &e.Commands[j]
			if c.When != "" {
				if ok, why := r.evalWhen(c.When, c.WhenSpan, "commands."+c.Name+".when"); !ok {
					res.Unavailable = append(res.Unavailable, CommandEntry{Invocation: c.Name, Name: c.Name,
						Source: "extension", Scope: extScope(e), File: e.Source.File, Reason: why})
					continue
				}
			}
			if k, dup := pos[c.Name]; dup {
				cmds[k].c = c
				continue
			}
			pos[c.Name] = len(cmds)
			cmds = append(cmds, extCmd{c, e})
		}
	}
	count := map[string]int{}
	for _, x := range cmds {
		count[x.c.Name]++
	}
	taken := map[string]bool{}
	for _, x := range cmds {
		if count[x.c.Name] == 1 {
			taken[x.c.Name] = true
		}
	}
	seen := map[string]int{}
	invocations := make([]string, len(cmds))
	for i, x := range cmds {
		name := x.c.Name
		inv := name
		if count[name] > 1 {
			seen[name]++
			k := seen[name]
			for taken[name+":"+strconv.Itoa(k)] {
				k++
			}
			inv = name + ":" + strconv.Itoa(k)
			taken[inv] = true
		}
		invocations[i] = inv
		if builtin[name] {
			msg := fmt.Sprintf("Extension command '/%s' conflicts with built-in interactive command. Skipping in autocomplete.", name)
			if inv != name {
				msg = fmt.Sprintf("Extension command '/%s' conflicts with built-in interactive command. Available as '/%s'.", name, inv)
			}
			r.warn(x.c.Span, "command-conflict", "", msg+" ("+fileOr(x.ext)+")")
		}
	}

	// Prompt templates and skills: the first of a name wins.
	var prompts []*PromptTemplate
	firstPrompt := map[string]*PromptTemplate{}
	for i := range in.Prompts {
		p := &in.Prompts[i]
		if w := firstPrompt[p.Name]; w != nil {
			r.warn(p.Span, "duplicate-name", "", fmt.Sprintf("name \"/%s\" collision: %s wins over %s", p.Name, w.File, p.File))
			continue
		}
		firstPrompt[p.Name] = p
		prompts = append(prompts, p)
	}
	var skills []*Skill
	firstSkill := map[string]*Skill{}
	for i := range in.Skills {
		s := &in.Skills[i]
		if w := firstSkill[s.Name]; w != nil {
			if w.File != s.File {
				r.warn(s.Span, "duplicate-name", "", fmt.Sprintf("name %q collision: %s wins over %s", s.Name, w.File, s.File))
			}
			continue
		}
		firstSkill[s.Name] = s
		skills = append(skills, s)
	}

	// Execution-lookup order.
	for i, x := range cmds {
		res.Commands = append(res.Commands, CommandEntry{Invocation: invocations[i], Name: x.c.Name,
			Source: "extension", Scope: extScope(x.ext), File: x.ext.Source.File, Prompt: x.c.Prompt, Run: x.c.Run})
	}
	for _, s := range skills {
		res.Commands = append(res.Commands, CommandEntry{Invocation: "skill:" + s.Name, Name: s.Name,
			Source: "skill", Scope: s.Scope, File: s.File, Package: s.Package})
	}
	for _, p := range prompts {
		res.Commands = append(res.Commands, CommandEntry{Invocation: p.Name, Name: p.Name,
			Source: "prompt", Scope: p.Scope, File: p.File, Package: p.Package})
	}

	// Autocomplete order.
	for _, p := range prompts {
		res.Autocomplete = append(res.Autocomplete, AutocompleteItem{Name: p.Name, Source: "prompt", Tag: PackageTag(p.Scope, p.Package),
			Description: p.Description, ArgumentHint: p.ArgumentHint})
	}
	for i, x := range cmds {
		if builtin[x.c.Name] {
			continue
		}
		res.Autocomplete = append(res.Autocomplete, AutocompleteItem{Name: invocations[i], Source: "extension",
			Tag: Tag(extScope(x.ext)), Description: x.c.Description, ArgumentHint: x.c.ArgumentHint})
	}
	if in.EnableSkillCommands {
		for _, s := range skills {
			res.Autocomplete = append(res.Autocomplete, AutocompleteItem{Name: "skill:" + s.Name, Source: "skill",
				Tag: PackageTag(s.Scope, s.Package), Description: s.Description})
		}
	}

	res.Diagnostics = r.diags
	res.Warnings = make([]Warning, 0, len(r.diags))
	for _, dg := range r.diags {
		w := Warning{Code: dg.Code, Message: dg.Message, File: dg.File(), Hint: dg.Hint}
		w.Line, w.Column = dg.Pos()
		res.Warnings = append(res.Warnings, w)
	}
	return res
}
