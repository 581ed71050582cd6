package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/jsonedit"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// snapshot is everything one load computed. It is built in a tea.Cmd and never changed after.
type snapshot struct {
	cfg     *config.Config
	loadErr error
	diags   diag.List
	// notApplied are the user files dropped whole or in part (config.NotApplied).
	notApplied diag.List

	res      *config.Resolution
	resErr   error
	explains []engine.ExplainResult // parallel to res.Tools.Tools

	models []modelChoice

	policy    sandbox.Policy
	sandEff   *config.Effective
	policyErr error

	stamps []stamp
}

// modelChoice is one entry of the model picker.
type modelChoice struct {
	Ref    string // provider/id
	Source string // models.json | catalogue
}

// stamp is what the watcher compares for one file.
type stamp struct {
	Path   string
	Exists bool
	Size   int64
	Mod    time.Time
}

// Messages from commands.
type (
	loadedMsg struct {
		gen  int
		snap *snapshot
		note string
	}
	stampsMsg struct{ stamps []stamp }
	tickMsg   struct{}
	editMsg   struct {
		undo *undoRecord
		line string
		err  error
	}
	undoMsg struct {
		line string
		err  error
	}
)

// undoRecord is the last write: the bytes before and after.
type undoRecord struct {
	Path     string
	Old, New []byte // Old is nil when the write created the file
}

// loadCmd loads, checks and resolves the configuration for a model.
func loadCmd(o Options, model string, gen int, note string) tea.Cmd {
	return func() tea.Msg {
		return loadedMsg{gen: gen, snap: load(o, model), note: note}
	}
}

func load(o Options, model string) *snapshot {
	s := &snapshot{}
	cfg, err := config.Load(o.Load)
	if err != nil {
		s.loadErr = err
		return s
	}
	s.cfg = cfg
	ro := o.Resolve
	ro.Model = model
	s.res, s.resErr = cfg.Resolve(ro)
	if s.res != nil && s.res.Tools != nil {
		s.explains = s.res.Tools.ExplainAll()
		if len(s.explains) != len(s.res.Tools.Tools) {
			s.explains = nil
			for _, t := range s.res.Tools.Tools {
				e, _ := s.res.Tools.Explain(t.Name)
				s.explains = append(s.explains, e)
			}
		}
	}
	s.notApplied = cfg.NotApplied()
	s.diags = append(append(diag.List{}, cfg.Check()...), cfg.Diags...)
	if s.res != nil {
		s.diags = append(s.diags, s.res.Diags...)
	}
	s.diags = s.diags.Sort()
	s.models = modelChoices(cfg)
	s.policy, s.sandEff, s.policyErr = cfg.SandboxPolicy()
	s.stamps = statAll(watchPaths(cfg))
	return s
}

// modelChoices lists models.json models, then the catalogue, without duplicates.
func modelChoices(cfg *config.Config) []modelChoice {
	var out []modelChoice
	seen := map[string]bool{}
	add := func(ref, src string) {
		if !seen[ref] {
			seen[ref] = true
			out = append(out, modelChoice{Ref: ref, Source: src})
		}
	}
	if eff, err := cfg.Effective(config.Models); err == nil && eff.Root != nil {
		if ps := eff.Root.Get("providers"); ps != nil {
			for _, p := range ps.Members {
				ms := p.Value.Get("models")
				if ms == nil {
					continue
				}
				for _, mv := range ms.Elems {
					if id := mv.Get("id"); id != nil && id.Node != nil && id.Node.Str != "" {
						add(p.Key+"/"+id.Node.Str, "models.json")
					}
				}
			}
		}
	}
	for _, m := range config.CatalogueModels() {
		add(m.Provider+"/"+m.ID, "catalogue")
	}
	return out
}

// watchPaths are the loaded files plus where each editable kind would live, so that a file
// created after the start is noticed too.
func watchPaths(cfg *config.Config) []string {
	var ps []string
	for _, f := range cfg.Files {
		if f.Scope != config.Builtin && f.Path != "" {
			ps = append(ps, f.Path)
		}
	}
	for _, k := range config.EditableKinds {
		ps = append(ps, cfg.Path(k, config.Global), cfg.Path(k, config.Project))
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

func statAll(paths []string) []stamp {
	out := make([]stamp, 0, len(paths))
	for _, p := range paths {
		st := stamp{Path: p}
		if fi, err := os.Stat(p); err == nil {
			st.Exists, st.Size, st.Mod = true, fi.Size(), fi.ModTime()
		}
		out = append(out, st)
	}
	return out
}

func sameStamps(a, b []stamp) bool {
	return slices.EqualFunc(a, b, func(x, y stamp) bool {
		return x.Path == y.Path && x.Exists == y.Exists && x.Size == y.Size && x.Mod.Equal(y.Mod)
	})
}

func tickCmd(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{} })
}

func statCmd(paths []string) tea.Cmd {
	return func() tea.Msg { return stampsMsg{stamps: statAll(paths)} }
}

// toolRule is the JSON value a toggle adds: a bare name for every model, else the long form.
func toolRule(tool, model string) []byte {
	if model == "" {
		b, _ := json.Marshal(tool)
		return b
	}
	b, _ := json.Marshal(struct {
		Tools  []string `json:"tools"`
		Models []string `json:"models"`
	}{[]string{tool}, []string{model}})
	return b
}

// editCmd adds a rule to personalExtensions.<field> of settings.json in one scope, through
// the editing API (validated against the whole stack, comments kept, written atomically).
func editCmd(o config.Options, scope config.Scope, field, tool, model string) tea.Cmd {
	return func() tea.Msg {
		cfg, err := config.Load(o)
		if err != nil {
			return editMsg{err: err}
		}
		val := toolRule(tool, model)
		ch, err := cfg.Edit(config.Settings, scope, config.EditOp{Op: config.OpAdd, Path: "personalExtensions." + field, Value: val})
		if err != nil {
			return editMsg{err: err}
		}
		if !ch.Changed() {
			return editMsg{err: fmt.Errorf("%s: nothing to change", ch.File)}
		}
		if err := ch.Write(); err != nil {
			return editMsg{err: err}
		}
		return editMsg{undo: &undoRecord{Path: ch.File, Old: ch.Old, New: ch.New},
			line: fmt.Sprintf("personalExtensions.%s += %s in %s", field, val, ch.File)}
	}
}

// undoCmd writes back the bytes from before the last edit, refusing when the file changed
// since (the new bytes are the expected content). A file the edit created is removed.
func undoCmd(u undoRecord) tea.Cmd {
	return func() tea.Msg {
		if u.Old == nil {
			cur, err := os.ReadFile(u.Path)
			if err != nil {
				return undoMsg{err: err}
			}
			if string(cur) != string(u.New) {
				return undoMsg{err: fmt.Errorf("%s: %w", u.Path, jsonedit.ErrChanged)}
			}
			if err := os.Remove(u.Path); err != nil {
				return undoMsg{err: err}
			}
			return undoMsg{line: fmt.Sprintf("%s: undone (the file the edit created is removed)", u.Path)}
		}
		if err := jsonedit.WriteFileAtomic(u.Path, u.Old, u.New); err != nil {
			return undoMsg{err: err}
		}
		return undoMsg{line: fmt.Sprintf("%s: undone (old bytes written back)", u.Path)}
	}
}
