package session

import (
	"encoding/json"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Loading decodes each line once, with jreader (jsonread.go), straight into the entry, its
// message and the message's content blocks. Every field of llm.Message, llm.Content and
// llm.Usage is read here by its JSON name: TestDecodeEveryField fails when one is added there
// and not here.

// decodeEntry decodes one line. b becomes the entry's bytes and is shared by its strings:
// the caller must never change it (lines.go hands out lines that nothing else holds).
func decodeEntry(b []byte) (*Entry, error) {
	b = b[:len(b):len(b)]
	r := jreader{b: b}
	// The entry is decoded on the stack and copied, at the end, into the allocation its
	// message made room for (an LLM message's), else into one of its own.
	var e Entry
	e.setRaw(b)
	var slot *Entry
	if r.object("") {
		first := true
		for {
			k, ok := r.member(&first)
			if !ok {
				break
			}
			switch string(k) {
			case "type":
				e.Type = knownType(r.str("type"))
			case "id":
				e.ID = r.str("id")
			case "parentId":
				e.ParentID = r.str("parentId")
			case "timestamp":
				e.Timestamp = r.str("timestamp")
			case "message":
				e.Message, slot = r.message(b)
			case "provider":
				e.fields().Provider = r.str("provider")
			case "modelId":
				e.fields().ModelID = r.str("modelId")
			case "thinkingLevel":
				e.fields().ThinkingLevel = r.str("thinkingLevel")
			case "summary":
				e.fields().Summary = r.str("summary")
			case "firstKeptEntryId":
				e.fields().FirstKeptEntryID = r.str("firstKeptEntryId")
			case "tokensBefore":
				e.fields().TokensBefore = int(r.float("tokensBefore"))
			case "fromId":
				e.fields().FromID = r.str("fromId")
			case "details":
				e.fields().Details = r.raw()
			case "usage":
				e.fields().Usage = r.raw()
			case "fromHook":
				e.fields().FromHook = r.boolPtr("fromHook")
			case "customType":
				e.fields().CustomType = r.str("customType")
			case "data":
				e.fields().Data = r.raw()
			case "content":
				e.fields().Content = r.raw()
			case "display":
				e.fields().Display = r.boolean("display")
			case "targetId":
				e.fields().TargetID = r.str("targetId")
			case "label":
				e.fields().Label = r.strPtr("label")
			case "name":
				e.fields().Name = r.str("name")
			default:
				r.skip()
			}
		}
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	if e.EntryData == nil && e.Type != TypeMessage {
		// Every entry but a message has its fields, set or not (readers check Type only).
		e.EntryData = new(EntryData)
	}
	if e.Type == TypeThinkingLevelChange {
		e.EntryData = sharedLevel(e.EntryData)
	}
	if slot == nil {
		slot = new(Entry)
	}
	*slot = e
	return slot, nil
}

// thinkingLevels holds one EntryData for each thinking level pi writes. A thinking level
// change is a tenth of the entries of pi's own session (large-session.jsonl) and its
// EntryData, 288 bytes for one string, was 1.4% of a loaded session; the entries of one
// level share one. Nothing changes an entry's EntryData after it is read (an entry is
// appended with its own, and labels are new entries), so sharing it is safe; these values
// must never be written to. They are static data, not built at start-up (D25.44).
var thinkingLevels = [...]EntryData{
	{ThinkingLevel: "off"}, {ThinkingLevel: "minimal"}, {ThinkingLevel: "low"},
	{ThinkingLevel: "medium"}, {ThinkingLevel: "high"}, {ThinkingLevel: "xhigh"},
}

// sharedLevel returns the shared EntryData equal to d when there is one, else d.
func sharedLevel(d *EntryData) *EntryData {
	if d.Provider != "" || d.ModelID != "" || d.Summary != "" || d.FirstKeptEntryID != "" || d.TokensBefore != 0 ||
		d.FromID != "" || d.Details != nil || d.Usage != nil || d.FromHook != nil || d.CustomType != "" ||
		d.Data != nil || d.Content != nil || d.Display || d.TargetID != "" || d.Label != nil || d.Name != "" {
		return d
	}
	for i := range thinkingLevels {
		if thinkingLevels[i].ThinkingLevel == d.ThinkingLevel {
			return &thinkingLevels[i]
		}
	}
	return d
}

// An LLM message is allocated together with its entry and its session message: 112 + 64 +
// 272 bytes, one 448-byte allocation (D25.18; the entry apart was 112 bytes and the message
// 344 in a 352-byte class). Its usage, when it has one, is apart: 96 bytes, a class of its
// own (with the message it made 440 bytes in a 448-byte class). The other roles are allocated
// together with what they point to (their bash run or custom message): the decoder's locals
// stay on the stack — taking their addresses for the result made every message allocate all
// three kinds, 512 bytes a message before its content (a loaded session kept 2.33× its
// file; see D25.14).
type (
	llmEntry struct {
		e Entry
		Message
		m llm.Message
	}
	bashMessage struct {
		Message
		b BashExecution
	}
	customMessage struct {
		Message
		c CustomMessage
	}
	unknownMessage struct {
		Message
		raw []byte
	}
)

// message decodes an entry's message of any role. Roles pigo does not know keep their bytes
// (written back as they are) and take no part in the context. An LLM message comes with room
// for its entry (slot), which the caller fills.
func (r *jreader) message(line []byte) (msg *Message, slot *Entry) {
	r.ws()
	start := r.i
	if !r.object("message") {
		return nil, nil
	}
	var (
		m        llm.Message
		usage    llm.Usage
		hasUsage bool
		content  contentField
		bash     BashExecution
		custom   CustomMessage
	)
	first := true
	for {
		k, ok := r.member(&first)
		if !ok {
			break
		}
		switch string(k) {
		case "role":
			m.Role = knownRole(r.str("role"))
		case "content":
			content = r.content()
		case "api":
			m.API = r.str("api")
		case "provider":
			m.Provider = r.str("provider")
		case "model":
			m.Model = r.str("model")
		case "responseId":
			m.ResponseID = r.str("responseId")
		case "usage":
			hasUsage = r.usage(&usage)
		case "stopReason":
			m.StopReason = knownStop(r.str("stopReason"))
		case "errorMessage":
			m.ErrorMessage = r.str("errorMessage")
		case "responseModel":
			m.ResponseModel = r.str("responseModel")
		case "rawStopReason":
			m.RawStopReason = r.str("rawStopReason")
		case "providerThinkingLevel":
			m.ProviderThinkingLevel = r.str("providerThinkingLevel")
		case "toolCallId":
			m.ToolCallID = r.str("toolCallId")
		case "toolName":
			m.ToolName = r.str("toolName")
		case "details":
			m.Details = r.raw()
		case "isError":
			m.IsError = r.boolPtr("isError")
		case "timestamp":
			m.Timestamp = r.integer("timestamp")
		case "command":
			bash.Command = r.str("command")
		case "output":
			bash.Output = r.str("output")
		case "exitCode":
			bash.ExitCode = r.intPtr("exitCode")
		case "cancelled":
			bash.Cancelled = r.boolean("cancelled")
		case "truncated":
			bash.Truncated = r.boolean("truncated")
		case "fullOutputPath":
			bash.FullOutputPath = r.str("fullOutputPath")
		case "excludeFromContext":
			bash.ExcludeFromContext = r.boolean("excludeFromContext")
		case "customType":
			custom.CustomType = r.str("customType")
		case "display":
			custom.Display = r.boolean("display")
		default:
			r.skip()
		}
	}
	if r.err != nil {
		return nil, nil
	}
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult:
		m.Content, m.StringContent = content.blocks, content.isString
		if hasUsage {
			u := new(llm.Usage)
			*u = usage
			m.Usage = u
		}
		p := &llmEntry{Message: Message{Role: m.Role}, m: m}
		p.LLM = &p.m
		return &p.Message, &p.e
	case RoleBashExecution:
		bash.Timestamp = m.Timestamp
		p := &bashMessage{Message: Message{Role: m.Role}, b: bash}
		p.Bash = &p.b
		return &p.Message, nil
	case RoleCustom, "hookMessage":
		if !content.null {
			custom.Content = content.raw
		}
		custom.Details, custom.Timestamp = m.Details, m.Timestamp
		p := &customMessage{Message: Message{Role: m.Role}, c: custom}
		p.Custom = &p.c
		return &p.Message, nil
	}
	p := &unknownMessage{Message: Message{Role: m.Role}, raw: line[start:r.i:r.i]}
	p.Message.raw = &p.raw
	return &p.Message, nil
}

// contentField is a message's content: a string (one text block) or an array of blocks.
type contentField struct {
	blocks   []llm.Content
	isString bool
	null     bool
	// raw is the value's bytes (a custom message keeps them as they are).
	raw json.RawMessage
}

func (r *jreader) content() contentField {
	var c contentField
	r.ws()
	start := r.i
	switch r.peek() {
	case '"':
		text, q := r.quoted("content")
		c.blocks, c.isString = []llm.Content{llm.TextBlock(text)}, true
		if q != "" {
			c.blocks[0].SetQuoted(text, q)
		}
	case 'n':
		r.null()
		c.null = true
	default:
		if r.array("content") {
			// The blocks are gathered on the stack and kept in a slice of their number:
			// appending to the kept slice left up to half of it unused (3 blocks in room
			// for 4) for as long as the session lives.
			var buf [4]llm.Content
			blocks := buf[:0]
			first := true
			for r.elem(&first) {
				blocks = append(blocks, r.block())
			}
			c.blocks = make([]llm.Content, len(blocks))
			copy(c.blocks, blocks)
		}
	}
	if r.err == nil && !c.null {
		c.raw = r.b[start:r.i:r.i]
	}
	return c
}

// block decodes one content block.
func (r *jreader) block() llm.Content {
	var c llm.Content
	if !r.object("content[]") {
		return c
	}
	first := true
	for {
		k, ok := r.member(&first)
		if !ok {
			return c
		}
		switch string(k) {
		case "type":
			c.Type = knownBlockType(r.str("type"))
		case "text":
			// The quoted form is kept for request bodies (llm.Content.SetQuoted).
			var q string
			if c.Text, q = r.quoted("text"); q != "" {
				c.SetQuoted(c.Text, q)
			}
		case "textSignature":
			c.TextSignature = r.str("textSignature")
		case "thinking":
			var q string
			if c.Thinking, q = r.quoted("thinking"); q != "" {
				c.SetQuoted(c.Thinking, q)
			}
		case "thinkingSignature":
			c.ThinkingSignature = r.str("thinkingSignature")
		case "redacted":
			c.Redacted = r.boolean("redacted")
		case "data":
			c.Data = r.str("data")
		case "mimeType":
			c.MimeType = r.str("mimeType")
		case "id":
			c.ID = r.str("id")
		case "name":
			c.Name = r.str("name")
		case "arguments":
			var canon bool
			var quotes int
			if c.Arguments, quotes, canon = r.rawStringified(); canon {
				c.SetArgumentsStringified(quotes)
			}
		case "thoughtSignature":
			c.ThoughtSignature = r.str("thoughtSignature")
		default:
			r.skip()
		}
	}
}

// usage decodes an assistant message's usage into u; false for null (no usage). u is
// cleared first: a repeated key keeps only its last value.
func (r *jreader) usage(u *llm.Usage) bool {
	*u = llm.Usage{}
	if !r.object("usage") {
		return false
	}
	first := true
	for {
		k, ok := r.member(&first)
		if !ok {
			return true
		}
		switch string(k) {
		case "input":
			u.Input = int(r.integer("input"))
		case "output":
			u.Output = int(r.integer("output"))
		case "cacheRead":
			u.CacheRead = int(r.integer("cacheRead"))
		case "cacheWrite":
			u.CacheWrite = int(r.integer("cacheWrite"))
		case "reasoning":
			u.Reasoning = r.intPtr("reasoning")
		case "totalTokens":
			u.TotalTokens = int(r.integer("totalTokens"))
		case "cacheWrite1h":
			u.CacheWrite1h = r.intPtr("cacheWrite1h")
		case "cost":
			if r.object("cost") {
				f := true
				for {
					k, ok := r.member(&f)
					if !ok {
						break
					}
					switch string(k) {
					case "input":
						u.Cost.Input = r.float("input")
					case "output":
						u.Cost.Output = r.float("output")
					case "cacheRead":
						u.Cost.CacheRead = r.float("cacheRead")
					case "cacheWrite":
						u.Cost.CacheWrite = r.float("cacheWrite")
					case "total":
						u.Cost.Total = r.float("total")
					default:
						r.skip()
					}
				}
			}
		default:
			r.skip()
		}
	}
}

// decodeHeader decodes a session header line (b is kept as its bytes).
func decodeHeader(b []byte) (Header, error) {
	b = b[:len(b):len(b)]
	r := jreader{b: b}
	h := Header{raw: b}
	if r.object("") {
		first := true
		for {
			k, ok := r.member(&first)
			if !ok {
				break
			}
			switch string(k) {
			case "type":
				h.Type = r.str("type")
			case "version":
				h.Version = int(r.integer("version"))
			case "id":
				h.ID = r.str("id")
			case "timestamp":
				h.Timestamp = r.str("timestamp")
			case "cwd":
				h.Cwd = r.str("cwd")
			case "parentSession":
				h.ParentSession = r.str("parentSession")
			default:
				r.skip()
			}
		}
	}
	return h, r.end()
}

// The strings the passes over a loaded session compare most — an entry's type, a message's
// role, a block's type, a stop reason — are the constants they equal, not views of their
// line: a comparison with a constant then reads the binary's data, which stays in cache,
// instead of the line's bytes in the file's block (a cache miss a message or a block in
// each pass over a long session: the context, the transform, the conversion, the body's
// hints and bytes, the token estimate, the replay). Any other value stays as it was read.

func knownType(s string) string {
	switch s {
	case TypeMessage:
		return TypeMessage
	case TypeModelChange:
		return TypeModelChange
	case TypeThinkingLevelChange:
		return TypeThinkingLevelChange
	case TypeCompaction:
		return TypeCompaction
	case TypeBranchSummary:
		return TypeBranchSummary
	case TypeCustom:
		return TypeCustom
	case TypeCustomMessage:
		return TypeCustomMessage
	case TypeLabel:
		return TypeLabel
	case TypeSessionInfo:
		return TypeSessionInfo
	}
	return s
}

func knownRole(s string) string {
	switch s {
	case llm.RoleUser:
		return llm.RoleUser
	case llm.RoleAssistant:
		return llm.RoleAssistant
	case llm.RoleToolResult:
		return llm.RoleToolResult
	case RoleBashExecution:
		return RoleBashExecution
	case RoleCustom:
		return RoleCustom
	case RoleBranchSummary:
		return RoleBranchSummary
	case RoleCompactionSummary:
		return RoleCompactionSummary
	}
	return s
}

func knownBlockType(s string) string {
	switch s {
	case llm.TypeText:
		return llm.TypeText
	case llm.TypeThinking:
		return llm.TypeThinking
	case llm.TypeToolCall:
		return llm.TypeToolCall
	case llm.TypeImage:
		return llm.TypeImage
	}
	return s
}

func knownStop(s string) string {
	switch s {
	case llm.StopStop:
		return llm.StopStop
	case llm.StopToolUse:
		return llm.StopToolUse
	case llm.StopLength:
		return llm.StopLength
	case llm.StopError:
		return llm.StopError
	case llm.StopAborted:
		return llm.StopAborted
	}
	return s
}
