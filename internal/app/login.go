package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/auth"
)

// Dialog asks the person while a command runs and shows lines meanwhile: what /login's
// sign-in flows need (the method to choose, a key to paste, the URL to open, a device code).
// The chat implements it; without one, /login and /logout are not offered.
type Dialog interface {
	// Input asks and waits: the chosen option's ID, or the typed text; ErrCancelled when the
	// person closes the dialog, ctx's error when ctx ends first (the dialog then closes).
	Input(ctx context.Context, r InputRequest) (string, error)
	// Show adds a line to the transcript.
	Show(text string)
}

// InputRequest is one question: a choice among Options ("select"), a line of text ("text"),
// or a secret that is never shown ("secret").
type InputRequest struct {
	Kind        string
	Message     string
	Placeholder string
	Options     []InputOption
}

// InputOption is one choice of a select request.
type InputOption struct{ ID, Label string }

// ErrCancelled is a Dialog's answer when the person closes it, and Open's error when the
// person cancels a question asked before the session starts (SessionSpec.MissingCwd).
var ErrCancelled = errors.New("cancelled")

// loginCommands are /login and /logout (pi 1.6's): sign in to a provider or save its key in
// auth.json, or remove what is stored; the session's model uses the new credential at once.
func loginCommands() []Command {
	has := func(s *Session) bool { return s.o.Dialog != nil && s.setup != nil && s.setup.AgentDir != "" }
	return []Command{
		{Name: "login", Interactive: true, Available: has, Pick: pickLogin, Run: runLogin},
		{Name: "logout", Interactive: true, Available: has, Pick: pickLogout, Run: runLogout},
	}
}

// customProviders are models.json's providers (those of the offered models that pi does not
// build in).
func (s *Session) customProviders() []string {
	if s.cfg == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, ref := range s.cfg.Models() {
		p, _, ok := strings.Cut(ref, "/")
		if _, builtin := auth.Provider(p); ok && !builtin && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// canonical spells a provider as pi knows it (a built-in id or name, or a models.json key);
// custom reports a models.json provider; "" when unknown.
func (s *Session) canonical(ref string) (id string, custom bool) {
	ref = strings.TrimSpace(ref)
	if info, ok := auth.Provider(ref); ok {
		return info.ID, false
	}
	for _, info := range auth.Providers() {
		if strings.EqualFold(info.Name, ref) {
			return info.ID, false
		}
	}
	for _, p := range s.customProviders() {
		if strings.EqualFold(p, ref) {
			return p, true
		}
	}
	return "", false
}

func providerLabel(id string) string {
	if info, ok := auth.Provider(id); ok {
		return info.Name
	}
	return id
}

// pickLogin lists the providers one can sign in to or save a key for, as `pigo auth login`.
func pickLogin(_ context.Context, s *Session) (Picker, error) {
	p := Picker{Title: "Select provider to log in", Empty: "No providers"}
	stored, _ := auth.NewStore(s.setup.AgentDir).Load()
	for _, id := range auth.LoginProviders(s.customProviders()) {
		desc := ""
		if info, ok := auth.Provider(id); ok && info.OAuthName != "" && auth.FlowFor(id) != nil {
			desc = info.OAuthName
		}
		if stored != nil && stored.Get(id) != nil {
			desc = strings.TrimSpace(desc + " · stored")
		}
		p.Items = append(p.Items, PickItem{Label: providerLabel(id), Arg: id, Description: desc})
	}
	return p, nil
}

// pickLogout lists the providers auth.json holds a credential for.
func pickLogout(_ context.Context, s *Session) (Picker, error) {
	p := Picker{Title: "Select provider to log out", Empty: "No stored credentials"}
	f, err := auth.NewStore(s.setup.AgentDir).Load()
	if err != nil {
		return p, err
	}
	for _, id := range f.Providers() {
		p.Items = append(p.Items, PickItem{Label: providerLabel(id), Arg: id})
	}
	return p, nil
}

func runLogin(ctx context.Context, s *Session, arg string) (Result, error) {
	if arg == "" {
		return Result{Text: "Usage: /login <provider>"}, nil
	}
	id, custom := s.canonical(arg)
	if id == "" {
		return Result{}, fmt.Errorf("Unknown provider %q.", arg)
	}
	// pi's /login <provider>: the account sign-in where there is one, else the key (a key for
	// a provider with a sign-in: `pigo auth login <provider> --api-key`).
	method, err := auth.LoginMethod(id, false, custom)
	if info, ok := auth.Provider(id); err != nil && ok && info.KeyName != "" {
		// An account sign-in pigo does not have yet (pi does): the key instead, said first.
		s.o.Dialog.Show(fmt.Sprintf("pigo cannot sign in to %s with an account yet; enter the %s instead.", info.Name, info.KeyName))
		method, err = auth.TypeAPIKey, nil
	}
	if err != nil {
		return Result{}, err
	}
	store := auth.NewStore(s.setup.AgentDir)
	cred, err := auth.Login(ctx, store, id, method, dialogLogin{s})
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrCancelled) || err.Error() == "Login cancelled" {
			return Result{Text: "Login cancelled."}, nil
		}
		return Result{}, fmt.Errorf("Failed to log in to %s: %v", providerLabel(id), err)
	}
	s.reloadCredential(id)
	if cred.Type == auth.TypeOAuth {
		return Result{Text: fmt.Sprintf("Logged in to %s. Credentials saved to %s", providerLabel(id), auth.Path(s.setup.AgentDir))}, nil
	}
	return Result{Text: fmt.Sprintf("Saved API key for %s. Credentials saved to %s", providerLabel(id), auth.Path(s.setup.AgentDir))}, nil
}

func runLogout(ctx context.Context, s *Session, arg string) (Result, error) {
	if arg == "" {
		return Result{Text: "Usage: /logout <provider>"}, nil
	}
	store := auth.NewStore(s.setup.AgentDir)
	f, err := store.Load()
	if err != nil {
		return Result{}, fmt.Errorf("Could not read stored credentials: %v", err)
	}
	id, _ := s.canonical(arg)
	cred := f.Get(id)
	if cred == nil && f.Get(arg) != nil {
		id, cred = arg, f.Get(arg)
	}
	if cred == nil {
		return Result{Text: fmt.Sprintf("No stored credentials for %s. Environment variables and models.json config are unchanged.", providerLabel(arg))}, nil
	}
	if _, err := store.Delete(ctx, id); err != nil {
		return Result{}, fmt.Errorf("Logout failed: %v", err)
	}
	s.reloadCredential(id)
	if cred.Type == auth.TypeOAuth {
		return Result{Text: fmt.Sprintf("Logged out of %s.", providerLabel(id))}, nil
	}
	return Result{Text: fmt.Sprintf("Removed stored API key for %s. Environment variables and models.json config are unchanged.", providerLabel(id))}, nil
}

// reloadCredential resolves the session model again when its provider's credential changed
// (a sign-in or a logout), so the next request uses what auth.json now holds; a model left
// without a credential is said at once.
func (s *Session) reloadCredential(provider string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.model == nil || s.model.Provider != provider || s.cfg == nil {
		return
	}
	if err := s.useModelLocked(s.model.Provider + "/" + s.model.ID); err != nil {
		s.fe.Notice(Notice{Text: err.Error(), Error: true})
		return
	}
	s.rebuild()
	if err := s.cfg.MissingCredential(s.model, s.o.APIKey); err != nil {
		s.fe.Notice(Notice{Text: err.Error(), Error: true})
	}
}

// dialogLogin is a sign-in flow's conversation through the session's Dialog.
type dialogLogin struct{ s *Session }

func (d dialogLogin) Notify(n auth.Notice) {
	dl := d.s.o.Dialog
	switch n.Kind {
	case auth.NoticeAuthURL:
		text := "Open this URL to sign in:\n  " + n.URL
		if n.Instructions != "" {
			text += "\n" + n.Instructions
		}
		dl.Show(text)
		if d.s.o.OpenURL != nil {
			d.s.o.OpenURL(n.URL)
		}
	case auth.NoticeDeviceCode:
		dl.Show(fmt.Sprintf("Open %s and enter code: %s\nWaiting for authentication...", n.VerificationURI, n.UserCode))
		if d.s.o.OpenURL != nil {
			d.s.o.OpenURL(n.VerificationURI)
		}
	default:
		dl.Show(n.Message)
	}
}

func (d dialogLogin) Prompt(ctx context.Context, p auth.Prompt) (string, error) {
	r := InputRequest{Kind: p.Kind, Message: p.Message, Placeholder: p.Placeholder}
	for _, o := range p.Options {
		r.Options = append(r.Options, InputOption{ID: o.ID, Label: o.Label})
	}
	ans, err := d.s.o.Dialog.Input(ctx, r)
	if err != nil {
		return "", errors.New("Login cancelled")
	}
	return ans, nil
}
