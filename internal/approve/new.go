package approve

// Options assemble a session's approvals.
type Options struct {
	// UI asks the person (the chat's dialogs); nil means nobody can be asked.
	UI Approver
	// Headless refuses every request even when a UI is set.
	Headless bool
	// Save persists the "always allow" patterns a person ticked in an escalation dialog (pigo
	// appends them to the project's sandbox.json); nil: they are not saved. It runs on the
	// asking tool's goroutine, never in a UI's event loop. It returns the file it wrote.
	Save func(patterns []string) (file string, err error)
	// Rules are the running approval rules: saved patterns are added to them at once.
	Rules *Rules
	// Report hears what Save did (the chat shows it); nil: nobody is told.
	Report func(saved []string, err error)
}

// New composes a session's Approver: Headless when nobody can be asked, else the UI behind
// the session memory and the persistence hook.
func New(o Options) Approver {
	if o.UI == nil || o.Headless {
		return Headless()
	}
	next := o.UI
	if o.Save != nil {
		next = &persisting{next: next, save: o.Save, rules: o.Rules, report: o.Report}
	}
	return Remember(next)
}
