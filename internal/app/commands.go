package app

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/engine"
)

// Command is one slash command a session runs (spec D20). The chat and `pigo -p` find them
// here, through Lookup, Run and Prompt: a command is added in one place, the list in
// builtinCommands (a file per command family beside this one).
type Command struct {
	Name string
	// Interactive commands run only where a person is (the chat); `pigo -p` sends
	// "/name ..." to the model as text, as pi's print mode does with its built-ins.
	// Extension-like commands (/talk*) run in both.
	Interactive bool
	// Available reports whether the session has the command now (nil: always).
	Available func(s *Session) bool
	// Pick lists the choices of the command typed without an argument (the chat opens a
	// selector; the chosen item's Arg is passed to Run). Nil: Run gets "" instead.
	Pick func(ctx context.Context, s *Session) (Picker, error)
	// Run runs the command with the trimmed text after its name.
	Run func(ctx context.Context, s *Session, arg string) (Result, error)
}

// Result is what a command did.
type Result struct {
	// Text is the status to show (printed by `pigo -p`).
	Text string
	// Input, when set, is put in the editor (a /fork's or /tree's user message to edit).
	Input string
	// Reset is true when the conversation was replaced: a front end draws Messages() anew.
	Reset bool
	// Ask, when set, is a question the command asks before it acts (pi's selector): the chat
	// shows it and runs the same command again with the chosen item's Arg.
	Ask *Picker
}

// Picker is a command's selector: a title and the items to choose from.
type Picker struct {
	Title string
	Items []PickItem
	// Empty is shown instead of an empty selector.
	Empty string
	// Current is the item selected first.
	Current int
	// Hint is shown under the list.
	Hint string
	// Cancel, when set, is the Arg the command is run with when the person closes the
	// selector without choosing (a question's cancel answer).
	Cancel string
}

// PickItem is one choice: the line shown and the argument passed to the command.
type PickItem struct {
	Label, Arg string
	// Description is shown beside the label.
	Description string
}

// Completion is one slash-menu line.
type Completion struct {
	Name, Tag, Description, ArgumentHint string
	// Source is where the command comes from: "builtin" (pi's), "prompt", "skill" or
	// "extension".
	Source string
	// Runs says the session runs it when typed: a template, a skill, an extension command
	// with a prompt, an argv or a session command behind it. A builtin's is whether the
	// session has it (Lookup); a front end runs the rest of pi's built-ins itself or does not
	// offer them.
	Runs bool
}

// builtinCommands is every command a session runs, in one list.
func builtinCommands() []Command {
	out := append(append(append(append(hostCommands(), chatCommands()...), seedCommands()...), mcpCommands()...), loginCommands()...)
	for _, name := range talkCommands {
		out = append(out, Command{Name: name, Available: func(s *Session) bool { return s.talk != nil },
			Run: func(_ context.Context, s *Session, arg string) (Result, error) {
				core, err := s.talk.get()
				if err != nil {
					return Result{}, err
				}
				return Result{Text: core.Command(name, arg)}, nil
			}})
	}
	return out
}

// Lookup finds the command name, when the session has it.
func (s *Session) Lookup(name string) (Command, bool) {
	for _, c := range s.commands {
		if c.Name == name && (c.Available == nil || c.Available(s)) {
			return c, true
		}
	}
	return Command{}, false
}

// errUnknownCommand is Run's error for a name the session does not have.
var errUnknownCommand = errors.New("unknown command")

// Run runs the command name with arg, marking the session busy meanwhile (Abort cancels it).
func (s *Session) Run(ctx context.Context, name, arg string) (Result, error) {
	c, ok := s.Lookup(name)
	if !ok {
		return Result{}, errUnknownCommand
	}
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return Result{}, err
	}
	defer done()
	return c.Run(ctx, s, strings.TrimSpace(arg))
}

// Pick computes the selector of the command name (it may read session files).
func (s *Session) Pick(ctx context.Context, name string) (Picker, error) {
	c, ok := s.Lookup(name)
	if !ok || c.Pick == nil {
		return Picker{}, errUnknownCommand
	}
	return c.Pick(ctx, s)
}

// Completions is the slash menu for a typed prefix: the resolved command set in pi's order,
// fuzzy-filtered as a session filters it.
func (s *Session) Completions(prefix string) []Completion {
	s.mu.Lock()
	cs := s.setup.Commands
	s.mu.Unlock()
	if cs == nil {
		return nil
	}
	acts := map[string]bool{}
	for _, c := range cs.Commands {
		acts[c.Invocation] = c.Source != "extension" || c.Prompt != "" || len(c.Run) > 0
	}
	var out []Completion
	for _, it := range engine.FuzzyFilter(cs.Autocomplete, prefix, func(it engine.AutocompleteItem) string { return it.Name }) {
		_, has := s.Lookup(it.Name)
		runs := has || (it.Source != "builtin" && acts[it.Name])
		out = append(out, Completion{Name: it.Name, Tag: it.Tag, Description: it.Description, ArgumentHint: it.ArgumentHint,
			Source: it.Source, Runs: runs})
	}
	return out
}

// withCommands adds a front end's commands to the built-in list; one with a built-in's name
// replaces it.
func withCommands(builtin, extra []Command) []Command {
	out := builtin
	for _, c := range extra {
		if i := slices.IndexFunc(out, func(b Command) bool { return b.Name == c.Name }); i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	return out
}
