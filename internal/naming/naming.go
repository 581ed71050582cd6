// Package naming is the seed's session-name extension: the first user prompt of an unnamed
// session becomes a short display name through one call to the model settings.json
// sessionName names. Without the setting, or when the model is unknown or fails, the session
// stays unnamed (a warning, never an error); an existing name is never overwritten.
package naming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/llm"
)

// The seed's limits: the default name length, the request timeout and the output budget
// (reasoning models think before they name).
const (
	DefaultMaxLength = 30
	RequestTimeout   = 30 * time.Second
	MaxTokens        = 4096
)

// The seed's warnings.
const (
	WarnNoConfig    = "未读取到 sessionName 配置，未自动命名"
	WarnUnavailable = "命名模型不可用，未自动命名"
	WarnFailed      = "命名模型调用失败，未自动命名"
)

// Named is the seed's notice for a session it named.
func Named(name string) string { return "会话已命名为: " + name }

// Config is settings.json sessionName, cleaned.
type Config struct {
	Provider, Model string
	MaxLength       int
}

// ParseConfig reads sessionName from settings.json's text; nil when absent or of the wrong
// shape. Provider falls back to defaultProvider; blank strings are unset; a non-positive
// maxLength is the default.
func ParseConfig(settings []byte) *Config {
	if jsonc.IsEmptyObject(settings) {
		// `{}`, a run's usual settings (no settings.json anywhere), names no sessionName:
		// answered without encoding/json's first decode of these types, which was ~0.06 ms
		// of the first prompt's way to its request.
		return nil
	}
	var s struct {
		SessionName *struct {
			Provider  *string  `json:"provider"`
			Model     *string  `json:"model"`
			MaxLength *float64 `json:"maxLength"`
		} `json:"sessionName"`
		DefaultProvider *string `json:"defaultProvider"`
	}
	if json.Unmarshal(settings, &s) != nil || s.SessionName == nil {
		return nil
	}
	sn := s.SessionName
	c := &Config{Provider: trim(sn.Provider), Model: trim(sn.Model), MaxLength: DefaultMaxLength}
	if c.Provider == "" {
		c.Provider = trim(s.DefaultProvider)
	}
	if sn.MaxLength != nil && *sn.MaxLength > 0 {
		c.MaxLength = int(math.Floor(*sn.MaxLength))
	}
	return c
}

func trim(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// SystemPrompt is the namer's instruction (the seed's text).
func SystemPrompt(maxLength int) string {
	return "你是一个会话命名助手。根据用户给出的第一条消息内容，生成一个简洁的会话显示名。\n" +
		fmt.Sprintf("要求：不超过 %d 个字符，概括消息主题；只输出名字本身，不要引号、标点、解释或多余说明。\n", maxLength) +
		"消息是中文时用中文命名，英文时用英文命名，保持原有语言。"
}

var spaces = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\s+`) }}

// Sanitize collapses whitespace and caps the name at maxLength UTF-16 units (JavaScript's
// length), cutting to maxLength-1 plus "…"; "" when nothing is left.
func Sanitize(raw string, maxLength int) string {
	s := strings.TrimSpace(spaces.Get().ReplaceAllString(raw, " "))
	u := utf16.Encode([]rune(s))
	if len(u) <= maxLength {
		return s
	}
	cut := u[:max(0, maxLength-1)]
	// A lone high surrogate at the cut is dropped (JavaScript would keep half a pair).
	if n := len(cut); n > 0 && utf16.IsSurrogate(rune(cut[n-1])) && cut[n-1] < 0xDC00 {
		cut = cut[:n-1]
	}
	return strings.TrimRight(string(utf16.Decode(cut)), " \t\n\r\f\v") + "…"
}

// ErrNoContent is a namer reply without text.
var ErrNoContent = errors.New("API 未返回内容")

// Generate asks the model for a name for text. The reply's text blocks (never its thinking)
// are the raw name, sanitized.
func Generate(ctx context.Context, p llm.Provider, m *llm.Model, o llm.Options, text string, maxLength int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	o.MaxTokens = MaxTokens
	msg := p.Stream(ctx, m, &llm.Context{SystemPrompt: SystemPrompt(maxLength),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}, Timestamp: time.Now().UnixMilli()}}}, &o, func(llm.Event) {})
	if msg == nil || msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		if msg != nil && msg.ErrorMessage != "" {
			return "", errors.New(msg.ErrorMessage)
		}
		return "", ErrNoContent
	}
	out := strings.TrimSpace(msg.Text())
	if out == "" {
		return "", ErrNoContent
	}
	name := Sanitize(out, maxLength)
	if name == "" {
		return "", ErrNoContent
	}
	return name, nil
}
