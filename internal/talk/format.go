package talk

import (
	"fmt"
	"math"
)

// BoundaryPreamble opens every delivered letter: peer text is not the user's.
const BoundaryPreamble = "This came from another pi agent, not from the user."

func shortAddr(addr string) string { return addr[:min(6, len(addr))] }

// jsRound is Math.round.
func jsRound(x float64) int64 { return int64(math.Floor(x + 0.5)) }

// age is the seed's relative time: "12s ago", "3m ago", "2h ago".
func age(ts, now int64) string {
	s := max(0, jsRound(float64(now-ts)/1000))
	if s < 60 {
		return fmt.Sprintf("%ds ago", s)
	}
	m := jsRound(float64(s) / 60)
	if m < 60 {
		return fmt.Sprintf("%dm ago", m)
	}
	return fmt.Sprintf("%dh ago", jsRound(float64(m)/60))
}

// FormatDelivery is the text a delivered letter puts into the receiving agent's context.
func FormatDelivery(l Letter, now int64) string {
	header := fmt.Sprintf("From pi agent %s (%s) — \"%s\"", l.From.AgentID, l.From.Cwd, l.From.Name)
	meta := fmt.Sprintf("_id %s · %s · sent %s_", l.ID, l.Kind, age(l.Ts, now))
	hint := ""
	if l.Kind == KindAsk {
		hint = fmt.Sprintf("\n\nReply with the talk-reply tool, replyTo: \"%s\"", l.ID)
	}
	return BoundaryPreamble + "\n\n" + header + ":\n\n" + l.Body + "\n\n" + meta + hint
}

type listItem struct {
	Status  string `json:"status"`
	WorkDir string `json:"work_dir"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Self    bool   `json:"self,omitempty"`
}

// formatListing is the JSON the model reads from talk-list-agents (JSON.stringify(items,
// null, 2)).
func formatListing(recs []Record, selfAddr string) string {
	if len(recs) == 0 {
		return "[]"
	}
	items := make([]listItem, len(recs))
	for i, r := range recs {
		st := "offline"
		if Live(r) {
			st = r.Status
		}
		items[i] = listItem{Status: st, WorkDir: r.Cwd, ID: r.AgentID, Name: r.Name, Self: r.Addr == selfAddr}
	}
	b, _ := marshalIndent(items)
	return string(b)
}

func refusalUnknown(to string) string {
	return fmt.Sprintf("Unknown agent id '%s'. Get agent ids with talk-list-agents.", to)
}
