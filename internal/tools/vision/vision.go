// Package vision implements describe_image: an image sent to the session's vision model.
package vision

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	// describe_image (the seed's vision-agent): local images go, as base64 image blocks (data:
	// URLs on the OpenAI wire), to the vision model of settings.visionConfig through the
	// provider layer, in one user message after the seed's system prompt.
	r.Register("vision", "describe_image", toolrun.Impl{Execute: describeImage})
}

// The seed's vision limits and texts.
const (
	visionMaxImageBytes = 100 * 1024 * 1024
	visionTimeout       = 300 * time.Second
	visionMaxTokens     = 4096
	// VisionSystemPrompt is the vision model's system prompt.
	VisionSystemPrompt = "你是一个图像识别助手。根据图片内容准确、完整地回答用户的问题。\n涉及可见文字、代码、命令、数字时逐字转述，说明颜色、布局与位置关系。\n默认使用中文回答。"
	// VisionDefaultPrompt is the instruction when the call gives no prompt.
	VisionDefaultPrompt = "详细描述这张图片的全部内容，包括所有可见文字、代码、命令、菜单、按钮、数字、图表，以及颜色、布局和位置关系。直接用中文描述。"
	TextVisionNoPath    = "需要提供 path（本地图片路径，单个或数组，数组一次识别多张）。"
	TextVisionCancelled = "图片识别已取消。"
)

var visionMime = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp"}

// visionPrompt is the seed's buildPrompt.
func visionPrompt(custom string, n int) string {
	in := strings.TrimFunc(custom, toolkit.IsJSSpaceRune)
	if in == "" {
		in = VisionDefaultPrompt
	}
	if n > 1 {
		return fmt.Sprintf("共 %d 张图片，请按顺序逐张描述，说明每张图片分别的内容。%s", n, in)
	}
	return in
}

// sniffImage is the seed's sniffMime: the file's magic bytes win over its extension.
func sniffImage(b []byte) string {
	switch {
	case len(b) >= 8 && string(b[:4]) == "\x89PNG":
		return "image/png"
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return "image/jpeg"
	case len(b) >= 6 && string(b[:4]) == "GIF8":
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case len(b) >= 2 && b[0] == 0x42 && b[1] == 0x4d:
		return "image/bmp"
	}
	return ""
}

// loadImage is the seed's loadImageBytes, with its checks and texts.
func loadImage(path string) (llm.Content, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if _, ok := visionMime[ext]; !ok {
		if ext == "" {
			ext = "(无扩展名)"
		}
		return llm.Content{}, errors.New("不支持的文件格式: " + ext)
	}
	st, err := os.Stat(path)
	if err != nil {
		return llm.Content{}, fmt.Errorf("无法读取文件 %s: %v", path, toolkit.NodeError(err, "stat", path))
	}
	if !st.Mode().IsRegular() {
		return llm.Content{}, errors.New("不是普通文件: " + path)
	}
	if st.Size() == 0 {
		return llm.Content{}, errors.New("文件为空: " + path)
	}
	if st.Size() > visionMaxImageBytes {
		return llm.Content{}, fmt.Errorf("图片过大 (%.1fMB)，上限 10MB", float64(st.Size())/1024/1024)
	}
	b, err := safefile.ReadRegular(path, visionMaxImageBytes, "describe_image")
	if err != nil {
		return llm.Content{}, toolkit.FsErrorAt(err, "open", path)
	}
	mime := sniffImage(b)
	if mime == "" {
		mime = visionMime[ext]
	}
	return llm.Content{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(b), MimeType: mime}, nil
}

// Vision is describe_image's model, resolved once per session from settings.visionConfig
// (the provider falling back to defaultProvider) through models.json and the catalogue: the
// tool reads no configuration file per call.
type Vision struct {
	// Configured is false when the settings name no vision model.
	Configured bool
	// Provider is the provider name as the texts show it ("default" when none is set);
	// ModelID the model id.
	Provider, ModelID string
	// Model is the resolved model, nil when the registry does not know it; Proxy its proxy.
	Model *llm.Model
	Proxy string
	// Err is why the model could not be resolved (the call reports it).
	Err error
}

type visionKey struct{}

// visionHolder guards a session's Vision: /reload replaces it while no call runs, but the
// race detector cannot know that.
type visionHolder struct {
	mu sync.Mutex
	v  Vision
}

// SetVision gives a session describe_image's model.
func SetVision(s *toolrun.Session, v Vision) {
	h := s.State(visionKey{}, func() any { return &visionHolder{} }).(*visionHolder)
	h.mu.Lock()
	h.v = v
	h.mu.Unlock()
}

func visionOf(s *toolrun.Session) Vision {
	h := s.State(visionKey{}, func() any { return &visionHolder{} }).(*visionHolder)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.v
}

func describeImage(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Path   any    `json:"path"`
		Prompt string `json:"prompt"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	var raw []string
	switch p := a.Path.(type) {
	case string:
		raw = []string{p}
	case []any:
		for _, x := range p {
			if s, ok := x.(string); ok {
				raw = append(raw, s)
			}
		}
	}
	var paths []string
	for _, p := range raw {
		if p = strings.TrimFunc(p, toolkit.IsJSSpaceRune); p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return toolkit.ErrDetails(TextVisionNoPath, map[string]any{"error": "no image path provided"}), nil
	}
	fail := func(err error) toolrun.Result {
		msg := err.Error()
		return toolkit.ErrDetails("识别失败: "+msg, map[string]any{"error": msg, "pendant": map[string]any{"markdown": "## 图片识别失败\n\n" + msg}})
	}
	s := inv.Session
	t := visionOf(s)
	if t.Err != nil {
		return fail(t.Err), nil
	}
	if !t.Configured {
		return toolkit.ErrDetails(`未配置视觉模型。请在 `+filepath.Join(s.AgentDir, "settings.json")+` 添加 visionConfig，例如: { "provider": "axonhub", "model": "mimo-v2.5" }`,
			map[string]any{"error": "visionConfig not configured"}), nil
	}
	if t.Model == nil {
		return toolkit.ErrDetails("在模型注册表中找不到视觉模型「"+t.Provider+"/"+t.ModelID+"」。请检查 models.json 是否配置了该 provider 与该模型。",
			map[string]any{"error": "model not found: " + t.Provider + "/" + t.ModelID}), nil
	}
	prompt := visionPrompt(a.Prompt, len(paths))
	inv.Progress(toolrun.TextResult("视觉识别 prompt: "+prompt, map[string]any{"prompt": prompt}))

	var content []llm.Content
	labels := make([]string, len(paths))
	for i, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(s.Cwd, p)
		}
		img, err := loadImage(abs)
		if err != nil {
			return fail(err), nil
		}
		content = append(content, img)
		labels[i] = filepath.Base(p)
	}
	content = append(content, llm.TextBlock(prompt))
	prov, err := llm.ProviderFor(t.Model.API)
	if err != nil {
		return fail(err), nil
	}
	maxTokens := t.Model.MaxTokens
	if maxTokens == 0 {
		maxTokens = visionMaxTokens
	}
	cctx, cancel := context.WithTimeout(ctx, visionTimeout)
	defer cancel()
	msg := prov.Stream(cctx, t.Model, &llm.Context{SystemPrompt: VisionSystemPrompt,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: content, Timestamp: time.Now().UnixMilli()}}},
		&llm.Options{MaxTokens: maxTokens, ProxyURL: t.Proxy}, func(llm.Event) {})
	if ctx.Err() != nil {
		return toolrun.TextResult(TextVisionCancelled, map[string]any{"cancelled": true}), nil
	}
	var texts []string // pi-ai's contentText: the text blocks joined by newlines
	for _, c := range msg.Content {
		if c.Type == llm.TypeText {
			texts = append(texts, c.Text)
		}
	}
	body := strings.TrimFunc(strings.Join(texts, "\n"), toolkit.IsJSSpaceRune)
	if body == "" {
		return fail(errors.New("API 未返回内容")), nil
	}
	tokens := "?"
	if msg.Usage != nil {
		tokens = fmt.Sprint(msg.Usage.TotalTokens)
	}
	desc := "[" + strings.Join(labels, ", ") + "]\n" + body + "\n[模型: " + t.Model.ID + ", tokens: " + tokens + "]"
	files := make([]string, len(paths))
	for i, p := range paths {
		files[i] = "`" + filepath.Base(p) + "`"
	}
	md := strings.TrimFunc(strings.Join([]string{"## 图片识别", "", "**图片**: " + strings.Join(files, ", "),
		"**视觉模型**: `" + t.Provider + "/" + t.ModelID + "`", "**Prompt**: " + prompt, "", "### 识别结果", "", body,
		"\n- -\n[模型: " + t.Model.ID + ", tokens: " + tokens + "]"}, "\n"), toolkit.IsJSSpaceRune)
	return toolrun.TextResult(desc, struct {
		Provider string         `json:"provider"`
		Model    string         `json:"model"`
		Prompt   string         `json:"prompt"`
		Output   string         `json:"output"`
		Paths    []string       `json:"paths"`
		Count    int            `json:"count"`
		Pendant  map[string]any `json:"pendant"`
	}{t.Provider, t.ModelID, prompt, desc, paths, len(paths), map[string]any{"markdown": md}}), nil
}
