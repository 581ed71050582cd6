package talk

import (
	"encoding/json"
	"regexp"
	"sort"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Group is a set of agents that see only each other; an agent is in at most one.
type Group struct {
	ID        string   `json:"id"`
	Members   []string `json:"members"`
	CreatedAt int64    `json:"createdAt"`
	UpdatedAt int64    `json:"updatedAt"`
}

const groupsNS = "groups"

// groupIDPattern is compiled on first use (bounded repeats make a large program, and every
// pigo process links talk).
var groupIDPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$`) }}

func validGroupName(s string) bool { return groupIDPattern.Get().MatchString(s) }

func listGroups(s *Store) ([]Group, error) {
	keys, err := s.ListKeys(groupsNS)
	if err != nil {
		return nil, err
	}
	var out []Group
	for _, k := range keys {
		var raw json.RawMessage
		if ok, _ := s.ReadJSON(groupsNS, k, &raw); !ok {
			continue
		}
		var g Group
		if strictDecode(raw, &g, "id", "members", "createdAt", "updatedAt") && g.Members != nil {
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out, nil
}

func readGroup(s *Store, id string) (*Group, error) {
	var raw json.RawMessage
	ok, err := s.ReadJSON(groupsNS, id+".json", &raw)
	if !ok || err != nil {
		return nil, err
	}
	var g Group
	if !strictDecode(raw, &g, "id", "members", "createdAt", "updatedAt") || g.Members == nil {
		return nil, nil
	}
	return &g, nil
}

func writeGroup(s *Store, g Group) error { return s.WriteJSON(groupsNS, g.ID+".json", g) }

func deleteGroup(s *Store, id string) error {
	_, err := s.RemoveKey(groupsNS, id+".json")
	return err
}

func groupForAgent(s *Store, agentID string) (*Group, error) {
	gs, err := listGroups(s)
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		for _, m := range g.Members {
			if m == agentID {
				return &g, nil
			}
		}
	}
	return nil, nil
}
