package spawn

import (
	"fmt"
	"slices"
	"strings"
)

// Roster is what a session knows of the sub-agents spawn-agent may start, resolved once when
// the session starts (the tool reads no configuration file per call).
type Roster struct {
	// Agents are the usable sub-agents, in the configuration's order.
	Agents []Agent
	// Unusable are the definitions that were skipped, with why.
	Unusable []Unusable
}

// Agent is one usable sub-agent.
type Agent struct {
	Name, Description string
}

// Unusable is one skipped definition: the names it answers to (its file name and its
// declared name), the file and the reason.
type Unusable struct {
	Names        []string
	File, Reason string
}

// Check is nil when name is a usable sub-agent; else the error names why it is not usable,
// or the available agents ("name: description; ..." or "none").
func (r Roster) Check(name string) error {
	for _, a := range r.Agents {
		if a.Name == name {
			return nil
		}
	}
	for _, u := range r.Unusable {
		if slices.Contains(u.Names, name) {
			return fmt.Errorf("agent %q is not usable: %s: %s", name, u.File, u.Reason)
		}
	}
	var avail []string
	for _, a := range r.Agents {
		avail = append(avail, a.Name+": "+a.Description)
	}
	list := strings.Join(avail, "; ")
	if list == "" {
		list = "none"
	}
	return fmt.Errorf("unknown agent %q (available: %s)", name, list)
}
