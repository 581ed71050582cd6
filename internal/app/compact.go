package app

import (
	"context"
	"errors"

	"github.com/pigo-agent/pigo/internal/agent"
)

// Compact summarises the branch through the model and records the compaction (pi's
// compact(), reason "manual"), between compaction_start and compaction_end events; a failure
// is reported in compaction_end and returned. The agent continues from the compacted
// context.
func (s *Session) Compact(ctx context.Context) error {
	s.mu.Lock()
	ag, st, cs := s.ag, agent.SessionStore(s.file), s.settings.agent().Compaction
	s.mu.Unlock()
	emit := s.fe.Event
	emit(agent.Event{Type: agent.EventCompactionStart, Reason: "manual"})
	fail := func(err error) error {
		if errors.Is(err, context.Canceled) {
			emit(agent.Event{Type: agent.EventCompactionEnd, Reason: "manual", Aborted: true})
			return err
		}
		emit(agent.Event{Type: agent.EventCompactionEnd, Reason: "manual", ErrorMessage: "Compaction failed: " + err.Error()})
		return err
	}
	branch := st.Branch()
	p := agent.PrepareCompaction(branch, cs)
	if p == nil {
		if n := len(branch); n > 0 && branch[n-1].Type == "compaction" {
			return fail(errors.New("Already compacted"))
		}
		return fail(errors.New("Nothing to compact (session too small)"))
	}
	c, err := ag.Compact(ctx, p, "manual")
	if err == nil && ctx.Err() != nil {
		err = context.Canceled
	}
	if err == nil {
		err = st.AppendCompaction(c)
	}
	if err != nil {
		return fail(err)
	}
	after, _ := agent.EstimateContextTokens(st.Context())
	emit(agent.Event{Type: agent.EventCompactionEnd, Reason: "manual", Compaction: &agent.CompactionResult{Summary: c.Summary,
		FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: c.TokensBefore, EstimatedTokensAfter: after, Usage: c.Usage, Details: c.Details}})
	s.mu.Lock()
	s.rebuild()
	s.mu.Unlock()
	return nil
}
