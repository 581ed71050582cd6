package session

// The encoding/json decoder pigo used before jsonread.go, kept as the oracle of the
// differential tests in decode_test.go: for every line it accepts, the one-pass decoder must
// give the same entry.

import (
	"encoding/json"

	"github.com/pigo-agent/pigo/internal/llm"
)

// oraclePlainLLM is llm.Message without its UnmarshalJSON (the wire struct handles the content).
type oraclePlainLLM llm.Message

// oracleMsgWire holds a message of any role.
type oracleMsgWire struct {
	oraclePlainLLM
	Content oracleContentField `json:"content"`

	// bashExecution
	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int   `json:"exitCode"`
	Cancelled          bool   `json:"cancelled"`
	Truncated          bool   `json:"truncated"`
	FullOutputPath     string `json:"fullOutputPath"`
	ExcludeFromContext bool   `json:"excludeFromContext"`

	// custom
	CustomType string `json:"customType"`
	Display    bool   `json:"display"`
}

// oracleContentField is a message's content: a string (one text block) or an array of blocks.
type oracleContentField struct {
	blocks   []llm.Content
	isString bool
	null     bool
}

func (c *oracleContentField) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.blocks, c.isString = []llm.Content{llm.TextBlock(s)}, true
		return nil
	case string(b) == "null":
		c.null = true
		return nil
	}
	return json.Unmarshal(b, &c.blocks)
}

type oracleEntryWire struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	ParentID         *string         `json:"parentId"`
	Timestamp        string          `json:"timestamp"`
	Message          *oracleMsgWire  `json:"message"`
	Provider         string          `json:"provider"`
	ModelID          string          `json:"modelId"`
	ThinkingLevel    string          `json:"thinkingLevel"`
	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	TokensBefore     float64         `json:"tokensBefore"`
	FromID           string          `json:"fromId"`
	Details          json.RawMessage `json:"details"`
	Usage            json.RawMessage `json:"usage"`
	FromHook         *bool           `json:"fromHook"`
	CustomType       string          `json:"customType"`
	Data             json.RawMessage `json:"data"`
	Content          json.RawMessage `json:"content"`
	Display          bool            `json:"display"`
	TargetID         string          `json:"targetId"`
	Label            *string         `json:"label"`
	Name             string          `json:"name"`
}

// decodeEntry decodes one line (b is kept as the entry's bytes: the caller passes a copy).
func oracleDecodeEntry(b []byte) (*Entry, error) {
	var w oracleEntryWire
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	e := &Entry{
		Type: w.Type, ID: w.ID, Timestamp: w.Timestamp,
		EntryData: &EntryData{
			Provider: w.Provider, ModelID: w.ModelID, ThinkingLevel: w.ThinkingLevel,
			Summary: w.Summary, FirstKeptEntryID: w.FirstKeptEntryID, TokensBefore: int(w.TokensBefore),
			FromID: w.FromID, Details: w.Details, Usage: w.Usage, FromHook: w.FromHook,
			CustomType: w.CustomType, Data: w.Data, Content: w.Content, Display: w.Display,
			TargetID: w.TargetID, Label: w.Label, Name: w.Name,
		},
	}
	e.setRaw(b)
	if w.ParentID != nil {
		e.ParentID = *w.ParentID
	}
	if w.Message != nil {
		m, err := w.Message.message(b)
		if err != nil {
			return nil, err
		}
		e.Message = m
	}
	return e, nil
}

// message turns the wire form into a Message; line is the entry's line, re-read only for a
// role pigo does not know (whose bytes are kept as they are).
func (w *oracleMsgWire) message(line []byte) (*Message, error) {
	role, ts := w.Role, w.oraclePlainLLM.Timestamp
	switch role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult:
		m := llm.Message(w.oraclePlainLLM)
		m.Content = w.Content.blocks
		m.StringContent = w.Content.isString
		return &Message{Role: role, LLM: &m}, nil
	case RoleBashExecution:
		return &Message{Role: role, Bash: &BashExecution{Command: w.Command, Output: w.Output, ExitCode: w.ExitCode,
			Cancelled: w.Cancelled, Truncated: w.Truncated, FullOutputPath: w.FullOutputPath, Timestamp: ts,
			ExcludeFromContext: w.ExcludeFromContext}}, nil
	case RoleCustom, "hookMessage":
		var content json.RawMessage
		switch {
		case w.Content.null || w.Content.blocks == nil:
		case w.Content.isString:
			content, _ = marshal(w.Content.blocks[0].Text)
		default:
			b, err := marshal(w.Content.blocks)
			if err != nil {
				return nil, err
			}
			content = b
		}
		return &Message{Role: role, Custom: &CustomMessage{CustomType: w.CustomType, Content: content, Display: w.Display,
			Details: w.Details, Timestamp: ts}}, nil
	}
	var raw struct {
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, err
	}
	b := []byte(raw.Message)
	return &Message{Role: role, raw: &b}, nil
}
