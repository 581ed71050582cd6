package chat

import "github.com/pigo-agent/pigo/internal/rewind"

// The /rewind storage lives in package rewind (it records every write through the one write
// path's hooks); the chat shows its points and plan.
type (
	// Rewind is the session's before-image store.
	Rewind = rewind.Store
	// Point is one place /rewind can go back to.
	Point = rewind.Point
	// Restore is one file /rewind would put back.
	Restore = rewind.Restore
)

// NewRewind returns a store; dir "" keeps it in memory.
func NewRewind(dir string) *Rewind { return rewind.New(dir) }

// PlanText is the preview /rewind shows before it restores.
func PlanText(p Point, plan []Restore) string {
	s := "Rewind to before: " + firstLine(p.Text) + "\n\nThe conversation goes back to before this prompt."
	if len(plan) == 0 {
		return s + "\nNo files to restore."
	}
	s += "\nFiles:"
	for _, rs := range plan {
		switch {
		case rs.Refused != "":
			s += "\n  skip     " + rs.Path + " (" + rs.Refused + ")"
		case rs.Delete:
			s += "\n  delete   " + rs.Path + " (created since)"
		default:
			s += "\n  restore  " + rs.Path
		}
	}
	return s
}
