package prompt

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/engine"
)

// Kinds of Expansion.
const (
	// KindText: send Text to the model as it is (no command matched, or an unknown /name).
	KindText = "text"
	// KindBuiltin: a built-in interactive command (only with Resolver.Builtins); the caller
	// acts on Command and Args.
	KindBuiltin = "builtin"
	// KindExtensionPrompt: a declarative extension command with `prompt`; Text is the
	// expanded prompt to send.
	KindExtensionPrompt = "extension-prompt"
	// KindRun: a declarative extension command with `run`; Argv is the argv to run (in the
	// sandbox), nothing is sent to the model.
	KindRun = "run"
	// KindSkill: `/skill:name args`; Text is pi's <skill> message.
	KindSkill = "skill"
	// KindTemplate: a prompt template; Text is the expanded template.
	KindTemplate = "template"
)

// Expansion is what a prompt turns into.
type Expansion struct {
	Kind string
	// Text is the message for the model (every kind but run; the input itself for builtin).
	Text string
	// Command is the command that matched (nil for text).
	Command *engine.CommandEntry
	// Args is the raw argument text after the name.
	Args string
	// Argv is a run command's argv, arguments substituted as whole words.
	Argv []string
}

// Resolver expands `/name` prompts through the resolved command set, in pi's order
// (session.prompt): extension command (the word after "/" up to the first space, by
// invocation name), then `/skill:name`, then a prompt template, else the text goes to the
// model unchanged.
type Resolver struct {
	// Commands is the resolved command set (engine.CommandResult.Commands).
	Commands []engine.CommandEntry
	// Builtins, when set, are matched first (interactive input, pi's submit handler) with
	// their match modes: "exact" only as the bare "/name", "args" also as "/name <args>";
	// "/settings x" falls through. pi's print mode (-p) dispatches no built-in: leave this
	// nil there, and a "/model" reaches the model as text.
	Builtins []engine.BuiltinCommand
	// Skills are the loaded skills, by name, for `/skill:` (default: the skill entries of
	// Commands). pi expands a skill whether or not skill commands are enabled.
	Skills []Skill
	// Templates, when set, are used instead of loading the template entries' files.
	Templates []*Template
}

// Expand resolves one prompt. An error is returned only when a matched skill or template
// file cannot be read.
func (r *Resolver) Expand(text string) (Expansion, error) {
	if !strings.HasPrefix(text, "/") {
		return Expansion{Kind: KindText, Text: text}, nil
	}
	name, args := text[1:], ""
	if i := strings.IndexByte(text, ' '); i >= 0 {
		name, args = text[1:i], text[i+1:]
	}
	for i := range r.Builtins {
		b := &r.Builtins[i]
		if b.Name != name || (b.Match != engine.MatchArgs && text != "/"+name) {
			continue
		}
		c := r.find("builtin", name)
		if c == nil {
			c = &engine.CommandEntry{Invocation: b.Name, Name: b.Name, Source: "builtin"}
		}
		return Expansion{Kind: KindBuiltin, Text: text, Command: c, Args: args}, nil
	}
	if c := r.find("extension", name); c != nil {
		switch {
		case len(c.Run) > 0:
			return Expansion{Kind: KindRun, Command: c, Args: args, Argv: SubstituteArgv(c.Run, ParseArgs(args))}, nil
		default:
			return Expansion{Kind: KindExtensionPrompt, Text: SubstituteArgs(c.Prompt, ParseArgs(args)), Command: c, Args: args}, nil
		}
	}
	if strings.HasPrefix(text, "/skill:") {
		sname := strings.TrimPrefix(name, "skill:")
		if s := r.skill(sname); s != nil {
			msg, err := SkillMessage(s, args)
			if err != nil {
				return Expansion{}, err
			}
			return Expansion{Kind: KindSkill, Text: msg, Command: r.find("skill", "skill:"+sname), Args: strings.TrimSpace(args)}, nil
		}
	}
	if tname, targs, ok := splitCommand(text); ok {
		t, c, err := r.template(tname)
		if err != nil {
			return Expansion{}, err
		}
		if t != nil {
			return Expansion{Kind: KindTemplate, Text: t.Expand(targs), Command: c, Args: targs}, nil
		}
	}
	return Expansion{Kind: KindText, Text: text}, nil
}

func (r *Resolver) find(source, invocation string) *engine.CommandEntry {
	for i := range r.Commands {
		if c := &r.Commands[i]; c.Source == source && c.Invocation == invocation {
			return c
		}
	}
	return nil
}

func (r *Resolver) skill(name string) *Skill {
	if r.Skills != nil {
		for i := range r.Skills {
			if r.Skills[i].Name == name {
				return &r.Skills[i]
			}
		}
		return nil
	}
	if c := r.find("skill", "skill:"+name); c != nil {
		return &Skill{Name: c.Name, File: c.File}
	}
	return nil
}

func (r *Resolver) template(name string) (*Template, *engine.CommandEntry, error) {
	c := r.find("prompt", name)
	if r.Templates != nil {
		for _, t := range r.Templates {
			if t.Name == name {
				return t, c, nil
			}
		}
		return nil, nil, nil
	}
	if c == nil {
		return nil, nil, nil
	}
	t, err := LoadTemplate(c.File)
	if err != nil {
		return nil, nil, err
	}
	return t, c, nil
}

// SubstituteArgv expands a run command's argv: a word that is exactly $@ or $ARGUMENTS
// becomes every argument as its own word; any other word gets SubstituteArgs. No shell is
// involved, so an argument can never become more than the words it was given as.
func SubstituteArgv(argv, args []string) []string {
	out := make([]string, 0, len(argv)+len(args))
	for _, w := range argv {
		if w == "$@" || w == "$ARGUMENTS" {
			out = append(out, args...)
			continue
		}
		out = append(out, SubstituteArgs(w, args))
	}
	return out
}
