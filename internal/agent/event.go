package agent

import (
	"encoding/json"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Event types: pi's AgentEvent and AgentSession event names.
const (
	EventAgentStart          = "agent_start"
	EventAgentEnd            = "agent_end"
	EventTurnStart           = "turn_start"
	EventTurnEnd             = "turn_end"
	EventMessageStart        = "message_start"
	EventMessageUpdate       = "message_update"
	EventMessageEnd          = "message_end"
	EventToolExecutionStart  = "tool_execution_start"
	EventToolExecutionUpdate = "tool_execution_update"
	EventToolExecutionEnd    = "tool_execution_end"
	EventQueueUpdate         = "queue_update"
	EventCompactionStart     = "compaction_start"
	EventCompactionEnd       = "compaction_end"
	EventAutoRetryStart      = "auto_retry_start"
	EventAutoRetryEnd        = "auto_retry_end"
	// Summarization retries (compaction's own model calls).
	EventSummarizationRetryScheduled    = "summarization_retry_scheduled"
	EventSummarizationRetryAttemptStart = "summarization_retry_attempt_start"
	EventSummarizationRetryFinished     = "summarization_retry_finished"
)

// Event is one loop or session event. Type says which fields are set.
type Event struct {
	Type string

	// message_start, message_update, message_end, turn_end: the message.
	Message *llm.Message
	// message_update: the provider's stream event (with its partial message).
	AssistantEvent *llm.Event
	// turn_end: the batch's tool results.
	ToolResults []llm.Message
	// agent_end: the messages this run added.
	Messages []llm.Message
	// agent_end and compaction_end: whether a retry or continuation follows.
	WillRetry bool

	// tool_execution_*.
	ToolCallID string
	ToolName   string
	Args       json.RawMessage
	Result     *Result // end: the result; update: the partial result
	IsError    bool

	// queue_update.
	Steering, FollowUp []string

	// compaction_start / compaction_end: manual | threshold | overflow.
	Reason     string
	Compaction *CompactionResult
	Aborted    bool

	// compaction_end, auto_retry_start, summarization_retry_scheduled.
	ErrorMessage string
	// auto_retry_*, summarization_retry_scheduled.
	Attempt     int
	MaxAttempts int
	DelayMs     int64
	Success     bool
	FinalError  string
	// summarization_retry_attempt_start: where the summary is for.
	Source string
}

// CompactionResult is compaction_end's result.
type CompactionResult struct {
	Summary              string          `json:"summary"`
	FirstKeptEntryID     string          `json:"firstKeptEntryId"`
	TokensBefore         int             `json:"tokensBefore"`
	EstimatedTokensAfter int             `json:"estimatedTokensAfter"`
	Usage                *llm.Usage      `json:"usage,omitempty"`
	Details              json.RawMessage `json:"details,omitempty"`
}

type jsonAssistantEvent struct {
	Type         string       `json:"type"`
	ContentIndex *int         `json:"contentIndex,omitempty"`
	Delta        *string      `json:"delta,omitempty"`
	Content      *string      `json:"content,omitempty"`
	ToolCall     *llm.Content `json:"toolCall,omitempty"`
	ID           *string      `json:"id,omitempty"`
	ToolName     *string      `json:"toolName,omitempty"`
	Reason       string       `json:"reason,omitempty"`
	Message      *llm.Message `json:"message,omitempty"`
	Error        *llm.Message `json:"error,omitempty"`
}

// MarshalJSON writes the event as pi's JSON mode prints it (toJsonEvent): pi's field names,
// and message_update reduced to the usage and the stream event without its partial message
// (a toolcall_start also names the call's id and tool).
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case EventAgentStart, EventTurnStart:
		return json.Marshal(struct {
			Type string `json:"type"`
		}{e.Type})
	case EventAgentEnd:
		return json.Marshal(struct {
			Type      string        `json:"type"`
			Messages  []llm.Message `json:"messages"`
			WillRetry bool          `json:"willRetry"`
		}{e.Type, nonNilMsgs(e.Messages), e.WillRetry})
	case EventTurnEnd:
		return json.Marshal(struct {
			Type        string        `json:"type"`
			Message     *llm.Message  `json:"message"`
			ToolResults []llm.Message `json:"toolResults"`
		}{e.Type, e.Message, nonNilMsgs(e.ToolResults)})
	case EventMessageStart, EventMessageEnd:
		return json.Marshal(struct {
			Type    string       `json:"type"`
			Message *llm.Message `json:"message"`
		}{e.Type, e.Message})
	case EventMessageUpdate:
		out := struct {
			Type  string              `json:"type"`
			Usage *llm.Usage          `json:"usage,omitempty"`
			Event *jsonAssistantEvent `json:"assistantMessageEvent"`
		}{Type: e.Type}
		if e.Message != nil {
			out.Usage = e.Message.Usage
		}
		if ev := e.AssistantEvent; ev != nil {
			j := &jsonAssistantEvent{Type: ev.Type, ContentIndex: ev.ContentIndex, Content: ev.Content, ToolCall: ev.ToolCall,
				Reason: ev.Reason, Message: ev.Message, Error: ev.Error}
			switch ev.Type {
			case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
				d := ev.Delta
				j.Delta = &d
			case llm.EventToolCallStart:
				if ev.Partial != nil && ev.ContentIndex != nil && *ev.ContentIndex < len(ev.Partial.Content) {
					c := ev.Partial.Content[*ev.ContentIndex]
					j.ID, j.ToolName = &c.ID, &c.Name
				}
			}
			out.Event = j
		}
		return json.Marshal(out)
	case EventToolExecutionStart:
		return json.Marshal(struct {
			Type       string          `json:"type"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Args       json.RawMessage `json:"args"`
		}{e.Type, e.ToolCallID, e.ToolName, rawOrEmpty(e.Args)})
	case EventToolExecutionUpdate:
		return json.Marshal(struct {
			Type          string          `json:"type"`
			ToolCallID    string          `json:"toolCallId"`
			ToolName      string          `json:"toolName"`
			Args          json.RawMessage `json:"args"`
			PartialResult *Result         `json:"partialResult"`
		}{e.Type, e.ToolCallID, e.ToolName, rawOrEmpty(e.Args), e.Result})
	case EventToolExecutionEnd:
		return json.Marshal(struct {
			Type       string  `json:"type"`
			ToolCallID string  `json:"toolCallId"`
			ToolName   string  `json:"toolName"`
			Result     *Result `json:"result"`
			IsError    bool    `json:"isError"`
		}{e.Type, e.ToolCallID, e.ToolName, e.Result, e.IsError})
	case EventQueueUpdate:
		return json.Marshal(struct {
			Type     string   `json:"type"`
			Steering []string `json:"steering"`
			FollowUp []string `json:"followUp"`
		}{e.Type, nonNilStrs(e.Steering), nonNilStrs(e.FollowUp)})
	case EventCompactionStart:
		return json.Marshal(struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		}{e.Type, e.Reason})
	case EventCompactionEnd:
		return json.Marshal(struct {
			Type         string            `json:"type"`
			Reason       string            `json:"reason"`
			Result       *CompactionResult `json:"result,omitempty"`
			Aborted      bool              `json:"aborted"`
			WillRetry    bool              `json:"willRetry"`
			ErrorMessage string            `json:"errorMessage,omitempty"`
		}{e.Type, e.Reason, e.Compaction, e.Aborted, e.WillRetry, e.ErrorMessage})
	case EventAutoRetryStart, EventSummarizationRetryScheduled:
		return json.Marshal(struct {
			Type         string `json:"type"`
			Attempt      int    `json:"attempt"`
			MaxAttempts  int    `json:"maxAttempts"`
			DelayMs      int64  `json:"delayMs"`
			ErrorMessage string `json:"errorMessage"`
		}{e.Type, e.Attempt, e.MaxAttempts, e.DelayMs, e.ErrorMessage})
	case EventAutoRetryEnd:
		return json.Marshal(struct {
			Type       string `json:"type"`
			Success    bool   `json:"success"`
			Attempt    int    `json:"attempt"`
			FinalError string `json:"finalError,omitempty"`
		}{e.Type, e.Success, e.Attempt, e.FinalError})
	case EventSummarizationRetryAttemptStart:
		return json.Marshal(struct {
			Type   string `json:"type"`
			Source string `json:"source"`
			Reason string `json:"reason,omitempty"`
		}{e.Type, e.Source, e.Reason})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
	}{e.Type})
}

func nonNilMsgs(m []llm.Message) []llm.Message {
	if m == nil {
		return []llm.Message{}
	}
	return m
}

func nonNilStrs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}
