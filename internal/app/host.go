package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// hostCommands are pi's built-in commands that change the session (spec D20); they run where
// a person is.
func hostCommands() []Command {
	return []Command{
		{Name: "new", Interactive: true, Run: func(_ context.Context, s *Session, _ string) (Result, error) {
			if err := s.NewSession(); err != nil {
				return Result{}, err
			}
			return s.sessionStarted(Result{Text: "New session started", Reset: true}), nil
		}},
		{Name: "name", Interactive: true, Run: runName},
		{Name: "model", Interactive: true, Pick: pickModel, Run: func(_ context.Context, s *Session, ref string) (Result, error) {
			if err := s.SwitchModel(ref); err != nil {
				return Result{}, err
			}
			return Result{Text: "Model: " + s.State().Model}, nil
		}},
		{Name: "compact", Interactive: true, Run: func(ctx context.Context, s *Session, instructions string) (Result, error) {
			// pi passes /compact's argument to the summary prompt; the agent's compaction
			// takes none yet, so the person is told rather than silently ignored.
			note := ""
			if instructions != "" {
				note = "Compaction instructions are not supported yet; compacted without them"
			}
			if err := s.Compact(ctx); err != nil {
				return Result{}, nil // compaction_end carried the error
			}
			return Result{Text: note}, nil
		}},
		{Name: "fork", Interactive: true, Pick: pickFork, Run: func(_ context.Context, s *Session, id string) (Result, error) {
			text, err := s.Fork(id)
			if err != nil {
				return Result{}, err
			}
			return s.sessionStarted(Result{Text: "Forked to new session", Reset: true, Input: text}), nil
		}},
		{Name: "resume", Interactive: true, Pick: pickResume, Run: func(_ context.Context, s *Session, arg string) (Result, error) {
			return runResume(s, arg)
		}},
		{Name: "tree", Interactive: true, Pick: pickTree, Run: func(_ context.Context, s *Session, id string) (Result, error) {
			if id == s.Leaf() {
				return Result{Text: "Already at this point"}, nil
			}
			text, err := s.Navigate(id)
			if err != nil {
				return Result{}, err
			}
			return Result{Text: "Navigated to selected point", Reset: true, Input: text}, nil
		}},
		{Name: "reload", Interactive: true, Run: func(_ context.Context, s *Session, _ string) (Result, error) {
			text, err := s.Reload()
			if err != nil {
				return Result{}, err
			}
			return Result{Text: text}, nil
		}},
		{Name: "session", Interactive: true, Run: func(_ context.Context, s *Session, _ string) (Result, error) {
			return Result{Text: s.Info()}, nil
		}},
	}
}

func runName(_ context.Context, s *Session, name string) (Result, error) {
	if name == "" {
		if n, _ := s.Name(""); n != "" {
			return Result{Text: "Session name: " + n}, nil
		}
		return Result{Text: "Usage: /name <name>"}, nil
	}
	if _, err := s.Name(name); err != nil {
		return Result{}, err
	}
	return Result{Text: "Session name set: " + name}, nil
}

// pickModel is /model's selector; the current model is marked.
func pickModel(_ context.Context, s *Session) (Picker, error) {
	cur := s.State().Model
	p := Picker{Title: "Select model", Empty: "No models available"}
	if s.cfg == nil {
		return p, nil
	}
	for _, ref := range s.cfg.Models() {
		label := ref
		if strings.EqualFold(ref, cur) {
			label += " ✓"
		}
		p.Items = append(p.Items, PickItem{Label: label, Arg: ref})
	}
	return p, nil
}

// pickFork is /fork's selector: the session's user messages in file order (pi's
// getUserMessagesForForking), the newest selected.
func pickFork(_ context.Context, s *Session) (Picker, error) {
	s.mu.Lock()
	entries := s.file.Entries()
	s.mu.Unlock()
	p := Picker{Title: "Fork from which message?", Empty: "No messages to fork from"}
	for _, e := range entries {
		if t := userText(e); t != "" {
			line, _, _ := strings.Cut(t, "\n")
			p.Items = append(p.Items, PickItem{Label: line, Arg: e.ID})
		}
	}
	p.Current = len(p.Items) - 1
	return p, nil
}

// pickResume is /resume's selector: this cwd's sessions, newest first, by name or first
// message, with their message counts.
func pickResume(_ context.Context, s *Session) (Picker, error) {
	infos, err := session.List(s.o.Session.Location, false)
	if err != nil {
		return Picker{}, err
	}
	p := Picker{Title: "Resume Session (Current Folder)", Empty: "No sessions found"}
	for _, in := range infos {
		label := in.Name
		if label == "" {
			label, _, _ = strings.Cut(in.FirstMessage, "\n")
		}
		p.Items = append(p.Items, PickItem{Label: fmt.Sprintf("%s · %d messages", label, in.Messages), Arg: in.Path})
	}
	return p, nil
}

// pickTree is /tree's selector: the file's conversation entries depth first (siblings in
// file order), indented where the tree branches, the active leaf's entry selected.
func pickTree(_ context.Context, s *Session) (Picker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.file
	p := Picker{Title: "Navigate session tree", Empty: "No entries in session"}
	leaf := f.Leaf()
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := f.Children(parent)
		d := depth
		if len(kids) > 1 {
			d++
		}
		for _, e := range kids {
			if label := treeLabel(e); label != "" {
				if e.ID == leaf {
					p.Current = len(p.Items)
				}
				p.Items = append(p.Items, PickItem{Label: strings.Repeat("  ", d) + label, Arg: e.ID})
			} else if e.ID == leaf {
				p.Current = max(len(p.Items)-1, 0)
			}
			walk(e.ID, d)
		}
	}
	walk("", 0)
	return p, nil
}

// treeLabel is an entry's line in /tree ("" for entries it does not show: tool results,
// model and thinking changes, labels).
func treeLabel(e *session.Entry) string {
	first := func(s string) string { l, _, _ := strings.Cut(strings.TrimSpace(s), "\n"); return l }
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil || e.Message.LLM == nil {
			if e.Message != nil && e.Message.Bash != nil {
				return "$ " + first(e.Message.Bash.Command)
			}
			return ""
		}
		m := e.Message.LLM
		var b strings.Builder
		for _, c := range m.Content {
			if c.Type == llm.TypeText {
				b.WriteString(c.Text)
			}
		}
		text := b.String()
		switch m.Role {
		case llm.RoleUser:
			return "user: " + first(text)
		case llm.RoleAssistant:
			if text == "" {
				return ""
			}
			return "assistant: " + first(text)
		}
	case session.TypeCompaction:
		return "[compaction]"
	case session.TypeBranchSummary:
		return "[branch summary] " + first(e.Summary)
	}
	return ""
}
