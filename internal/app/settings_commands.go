package app

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/pattern"
)

// Settings is what the chat's configuration commands read and write: the models, the global
// settings.json and trust.json, which only the command line reaches.
type Settings interface {
	// ModelRefs are every model /model offers; ConfiguredRefs the models of providers the
	// person configured (listed first, cycled by Ctrl+P).
	ModelRefs() []string
	ConfiguredRefs() []string
	// SaveSetting sets key in the global settings.json.
	SaveSetting(key string, v json.RawMessage) error
	// SaveTrust is /trust ARG: the project's decision saved in trust.json; it returns what to
	// tell the person.
	SaveTrust(arg string) (string, error)
	// ProjectDir is the project folder /trust decides.
	ProjectDir() string
}

// SettingsCommands are the commands the chat's keys and pi's settings commands run on top of
// the session's: /model listing the configured providers' models first, cycling models
// (Ctrl+P), saving a setting (/settings), /scoped-models and /trust; enabled is the settings'
// enabledModels.
func SettingsCommands(ac Settings, enabled []string) []Command {
	// The configuration is read at each call: /reload replaces it.
	scoped := enabled
	switchTo := func(s *Session, ref string) (Result, error) {
		if err := s.SwitchModel(ref); err != nil {
			return Result{}, err
		}
		// pi's status names the model's id.
		_, id, _ := strings.Cut(s.State().Model, "/")
		return Result{Text: "Model: " + id}, nil
	}
	saveSetting := ac.SaveSetting
	return []Command{
		{Name: "model", Interactive: true, Run: func(_ context.Context, s *Session, ref string) (Result, error) {
			return switchTo(s, ref)
		}, Pick: func(_ context.Context, s *Session) (Picker, error) {
			// pi lists the models it can use; the configured providers' models come first
			// here, then the rest of the catalogue.
			cur := s.State().Model
			p := Picker{Title: "Select model", Empty: "No models available"}
			seen := map[string]bool{}
			add := func(ref, desc string) {
				if seen[strings.ToLower(ref)] {
					return
				}
				seen[strings.ToLower(ref)] = true
				label := ref
				if strings.EqualFold(ref, cur) {
					label += " ✓"
					p.Current = len(p.Items)
				}
				p.Items = append(p.Items, PickItem{Label: label, Arg: ref, Description: desc})
			}
			for _, ref := range ac.ConfiguredRefs() {
				add(ref, "configured")
			}
			for _, ref := range ac.ModelRefs() {
				add(ref, "")
			}
			return p, nil
		}},
		{Name: "cycle-model", Interactive: true, Run: func(_ context.Context, s *Session, dir string) (Result, error) {
			refs := ac.ModelRefs()
			if len(scoped) > 0 {
				var in []string
				for _, ref := range refs {
					if matchesAny(scoped, ref) {
						in = append(in, ref)
					}
				}
				refs = in
			} else {
				refs = ac.ConfiguredRefs()
			}
			if len(refs) < 2 {
				msg := "Only one model available"
				if len(scoped) > 0 {
					msg = "Only one model in scope"
				}
				return Result{Text: msg}, nil
			}
			cur := s.State().Model
			i := slices.IndexFunc(refs, func(r string) bool { return strings.EqualFold(r, cur) })
			step := 1
			if dir == "previous" {
				step = -1
			}
			next := refs[((i+step)%len(refs)+len(refs))%len(refs)]
			if err := s.SwitchModel(next); err != nil {
				return Result{}, err
			}
			stt := s.State()
			_, id, _ := strings.Cut(stt.Model, "/")
			text := "Switched to " + id
			if stt.Reasoning && stt.Thinking != "off" && stt.Thinking != "" {
				text += " (thinking: " + stt.Thinking + ")"
			}
			return Result{Text: text}, nil
		}},
		{Name: "set-setting", Interactive: true, Run: func(_ context.Context, _ *Session, kv string) (Result, error) {
			k, v, _ := strings.Cut(kv, "=")
			raw := v
			if v != "true" && v != "false" && strings.Trim(v, "0123456789") != "" {
				b, _ := json.Marshal(v)
				raw = string(b)
			}
			return Result{}, saveSetting(k, json.RawMessage(raw))
		}},
		{Name: "trust", Interactive: true, Run: func(_ context.Context, _ *Session, arg string) (Result, error) {
			text, err := ac.SaveTrust(arg)
			return Result{Text: text}, err
		}, Pick: func(context.Context, *Session) (Picker, error) {
			return Picker{Title: "Trust " + ac.ProjectDir() + "?", Items: []PickItem{
				{Label: "Trust this folder", Arg: "trust", Description: "load its .pi/ settings, extensions and packages from now on"},
				{Label: "Do not trust this folder", Arg: "untrust", Description: "ignore its .pi/ folder from now on"},
			}, Hint: "The decision is saved in trust.json and applies when pigo starts again"}, nil
		}},
		{Name: "scoped-models", Interactive: true, Run: func(_ context.Context, _ *Session, ref string) (Result, error) {
			if ref == "" {
				return Result{}, nil
			}
			if i := slices.Index(scoped, ref); i >= 0 {
				scoped = slices.Delete(scoped, i, i+1)
			} else {
				scoped = append(scoped, ref)
			}
			v, _ := json.Marshal(scoped)
			if err := saveSetting("enabledModels", v); err != nil {
				return Result{}, err
			}
			if len(scoped) == 0 {
				return Result{Text: "Model scope cleared: Ctrl+P cycles through every configured model"}, nil
			}
			return Result{Text: "Models in scope: " + strings.Join(scoped, ", ")}, nil
		}, Pick: func(context.Context, *Session) (Picker, error) {
			p := Picker{Title: "Scoped models (enter toggles a model for Ctrl+P cycling; saved to settings enabledModels)", Empty: "No models available"}
			for _, ref := range ac.ConfiguredRefs() {
				label := "[ ] " + ref
				if matchesAny(scoped, ref) {
					label = "[x] " + ref
				}
				p.Items = append(p.Items, PickItem{Label: label, Arg: ref})
			}
			return p, nil
		}},
	}
}

// matchesAny reports whether ref matches one of pi's model patterns (id or provider/id).
func matchesAny(patterns []string, ref string) bool {
	_, id, _ := strings.Cut(ref, "/")
	for _, p := range patterns {
		if strings.EqualFold(p, ref) || strings.EqualFold(p, id) {
			return true
		}
		if g, err := pattern.Compile(p); err == nil && (g.Match(ref) || g.Match(id)) {
			return true
		}
	}
	return false
}
