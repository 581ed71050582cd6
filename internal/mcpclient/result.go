package mcpclient

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// OutputMaxBytes is the size of the model-facing text of an MCP result beyond which its middle
// is cut out (pi's MCP_OUTPUT_MAX_BYTES).
const OutputMaxBytes = 20 * 1024

// SaveFunc writes data to a new file with the given extension and returns its path.
type SaveFunc func(data []byte, ext string) (string, error)

// SaveTemp writes an output file as pi's writeOutputFile does: <tmp>/pigo-mcp-<16 hex><ext>,
// readable only by the user, never through an existing path.
func SaveTemp(data []byte, ext string) (string, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	p := filepath.Join(os.TempDir(), "pigo-mcp-"+hex.EncodeToString(b[:])+ext)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(p)
		return "", werr
	}
	return p, nil
}

// Converted is an MCP result as the session's execution path takes it.
type Converted struct {
	Content []llm.Content
	Details json.RawMessage
	// Structured is the whole CallToolResult without _meta: what codemode scripts receive.
	Structured json.RawMessage
	IsError    bool
}

// block is one MCP content block, decoded loosely (servers send more than the spec says).
type block struct {
	Type        string          `json:"type"`
	Text        *string         `json:"text"`
	Data        string          `json:"data"`
	MimeType    string          `json:"mimeType"`
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       *string         `json:"title"`
	Description string          `json:"description"`
	Size        *float64        `json:"size"`
	Resource    *resourceBody   `json:"resource"`
	Raw         json.RawMessage `json:"-"`
}

type resourceBody struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *string `json:"blob"`
}

// ConvertResult is pi's convertMcpResult: the content blocks become text and images (resource
// links name read_mcp_resource when readable, binary resources are saved to files), the text
// is kept within OutputMaxBytes, and isError results become error results that keep the
// structured result.
func ConvertResult(server, tool string, raw json.RawMessage, readable bool, save SaveFunc) (Converted, error) {
	var res struct {
		Content           *json.RawMessage `json:"content"`
		StructuredContent json.RawMessage  `json:"structuredContent"`
		IsError           bool             `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(bytes.TrimSpace(raw)) == 0 || raw[0] != '{' {
		return Converted{}, &RPCError{Code: codeInvalidRequest, Message: "Invalid MCP tools/call result"}
	}
	var blocks []json.RawMessage
	if res.Content != nil && string(*res.Content) != "null" {
		if json.Unmarshal(*res.Content, &blocks) != nil {
			return Converted{}, &RPCError{Code: codeInvalidRequest, Message: "Invalid MCP tools/call result"}
		}
	}
	var content []llm.Content
	if len(blocks) > 0 {
		content = ModelContent(server, blocks, readable, save)
	} else if len(res.StructuredContent) > 0 {
		content = append(content, llm.TextBlock(indentJS(res.StructuredContent)))
	}
	if res.IsError && textOf(content) == "" {
		content = append(content, llm.TextBlock(fmt.Sprintf("MCP tool %s/%s returned an error", server, tool)))
	}
	content, full := LimitContent(content, save)
	details := map[string]string{"server": server, "tool": tool}
	if full != "" {
		details["fullOutputPath"] = full
	}
	d, _ := json.Marshal(orderedDetails(details))
	return Converted{Content: content, Details: d, Structured: scriptResult(raw, res.Content == nil), IsError: res.IsError}, nil
}

// orderedDetails keeps pi's key order: server, tool, fullOutputPath.
func orderedDetails(m map[string]string) json.RawMessage {
	b := []byte(`{"server":`)
	b = append(b, mustJSON(m["server"])...)
	b = append(b, `,"tool":`...)
	b = append(b, mustJSON(m["tool"])...)
	if p, ok := m["fullOutputPath"]; ok {
		b = append(b, `,"fullOutputPath":`...)
		b = append(b, mustJSON(p)...)
	}
	return append(b, '}')
}

// scriptResult is the result without _meta (and with content [] when the server left it out).
func scriptResult(raw json.RawMessage, noContent bool) json.RawMessage {
	if !bytes.Contains(raw, []byte(`"_meta"`)) && !noContent {
		return raw
	}
	var m []struct {
		k string
		v json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return raw
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return raw
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw
		}
		if k, _ := t.(string); k != "_meta" {
			m = append(m, struct {
				k string
				v json.RawMessage
			}{k, v})
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	if noContent {
		b.WriteString(`"content":[]`)
	}
	for i, kv := range m {
		if i > 0 || noContent {
			b.WriteByte(',')
		}
		b.Write(mustJSON(kv.k))
		b.WriteByte(':')
		b.Write(kv.v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// ModelContent converts content blocks (pi's toModelContent).
func ModelContent(server string, blocks []json.RawMessage, readable bool, save SaveFunc) []llm.Content {
	var out []llm.Content
	for _, raw := range blocks {
		var b block
		if json.Unmarshal(raw, &b) != nil {
			out = append(out, llm.TextBlock("[unsupported MCP content]"))
			continue
		}
		out = append(out, blockContent(server, &b, readable, save)...)
	}
	return out
}

func blockContent(server string, b *block, readable bool, save SaveFunc) []llm.Content {
	switch {
	case b.Type == "resource_link":
		var details []string
		if b.MimeType != "" {
			details = append(details, b.MimeType)
		}
		if b.Size != nil {
			details = append(details, FormatSize(int64(*b.Size)))
		}
		title := b.Name
		if b.Title != nil {
			title = *b.Title
		}
		s := "[Resource " + b.URI + " \"" + title + "\""
		if len(details) > 0 {
			s += " (" + strings.Join(details, ", ") + ")"
		}
		if b.Description != "" {
			s += ": " + b.Description
		}
		if readable {
			s += fmt.Sprintf(". Read it with %s (server %q)", mcp.ReadResourceTool, server)
		}
		return []llm.Content{llm.TextBlock(s + "]")}
	case b.Type == "resource" && b.Resource != nil && b.Resource.Blob != nil && !strings.HasPrefix(b.Resource.MimeType, "image/"):
		r := b.Resource
		data, _ := base64.StdEncoding.DecodeString(*r.Blob)
		if textMime(r.MimeType) {
			return []llm.Content{llm.TextBlock(string(data))}
		}
		mt := r.MimeType
		if mt == "" {
			mt = "unknown type"
		}
		kind := mt + ", " + FormatSize(int64(len(data)))
		if save == nil {
			save = SaveTemp
		}
		p, err := save(data, extensionOf(r.URI))
		if err != nil {
			return []llm.Content{llm.TextBlock(fmt.Sprintf("[Binary resource %s (%s) could not be saved: %v]", r.URI, kind, err))}
		}
		return []llm.Content{llm.TextBlock(fmt.Sprintf("[Binary resource %s (%s) saved to %s]", r.URI, kind, p))}
	}
	// pi-mcp's blockToLlmContent.
	switch b.Type {
	case "text":
		t := ""
		if b.Text != nil {
			t = *b.Text
		}
		return []llm.Content{llm.TextBlock(t)}
	case "image":
		return []llm.Content{{Type: llm.TypeImage, Data: b.Data, MimeType: b.MimeType}}
	case "audio":
		return []llm.Content{llm.TextBlock(fmt.Sprintf("[audio %s omitted]", b.MimeType))}
	case "resource_link":
		return []llm.Content{llm.TextBlock(b.Name + ": " + b.URI)}
	case "resource":
		r := b.Resource
		if r == nil {
			r = &resourceBody{}
		}
		if r.Text != nil {
			return []llm.Content{llm.TextBlock(*r.Text)}
		}
		if strings.HasPrefix(r.MimeType, "image/") && r.Blob != nil {
			return []llm.Content{{Type: llm.TypeImage, Data: *r.Blob, MimeType: r.MimeType}}
		}
		mt := r.MimeType
		if mt == "" {
			mt = "unknown type"
		}
		return []llm.Content{llm.TextBlock(fmt.Sprintf("[binary resource %s (%s) omitted]", r.URI, mt))}
	}
	return []llm.Content{llm.TextBlock(fmt.Sprintf("[unsupported MCP content %s]", b.Type))}
}

// textMime reports blob types shown as text.
func textMime(mt string) bool {
	if mt == "" {
		return false
	}
	t := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	return strings.HasPrefix(t, "text/") || t == "application/json" || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml")
}

var extRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\.[A-Za-z0-9]{1,8}$`) }}

// extensionOf is the extension a saved binary resource gets: its URI's, else ".bin".
func extensionOf(uri string) string {
	p := uri
	if u, err := url.Parse(uri); err == nil && u.Scheme != "" {
		p = u.Path
	}
	if m := extRe.Get().FindString(p); m != "" {
		return m
	}
	return ".bin"
}

// FormatSize is pi's formatSize.
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + "KB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + "MB"
}

func textOf(content []llm.Content) string {
	var parts []string
	for _, c := range content {
		if c.Type == llm.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// LimitContent is pi's limitMcpContent: text over OutputMaxBytes becomes one text block in
// Codex's truncation format naming the file with the full text; images follow it. It returns
// the file's path ("" when nothing was cut).
func LimitContent(content []llm.Content, save SaveFunc) ([]llm.Content, string) {
	combined := textOf(content)
	if len(combined) <= OutputMaxBytes {
		return content, ""
	}
	head, tail, removed := truncateMiddle(combined, OutputMaxBytes)
	lines := strings.Count(combined, "\n") + 1
	if strings.HasSuffix(combined, "\n") {
		lines--
	}
	if save == nil {
		save = SaveTemp
	}
	where, full := "", ""
	if p, err := save([]byte(combined), ".txt"); err == nil {
		full = p
		where = "\n\n[Full output: " + p + " (read it with offset/limit)]"
	} else {
		where = "\n\n[Could not save the full output: " + err.Error() + "]"
	}
	tokens := int64(math.Ceil(float64(len(combined)) / 4))
	text := fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s…%d chars truncated…%s%s",
		tokens, lines, head, removed, tail, where)
	out := []llm.Content{llm.TextBlock(text)}
	for _, c := range content {
		if c.Type == llm.TypeImage {
			out = append(out, c)
		}
	}
	return out, full
}

// truncateMiddle keeps the first and last halves of max bytes at character boundaries and
// counts the characters (code points) in between.
func truncateMiddle(s string, max int) (head, tail string, removed int) {
	headEnd := max / 2
	for headEnd > 0 && headEnd < len(s) && !utf8.RuneStart(s[headEnd]) {
		headEnd--
	}
	tailStart := len(s) - (max - max/2)
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	return s[:headEnd], s[tailStart:], utf8.RuneCountInString(s[headEnd:tailStart])
}

// indentJS renders a JSON value as JSON.stringify(v, null, 2) does.
func indentJS(raw json.RawMessage) string {
	v, err := toolrun.ParseValue(raw)
	if err != nil {
		return string(raw)
	}
	return v.Indent()
}
