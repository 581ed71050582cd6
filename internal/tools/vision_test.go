package tools

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	_ "github.com/pigo-agent/pigo/internal/llm/providers"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// visionEnv is a session whose settings name the vision model vis/vmodel served by srv.
func visionEnv(t *testing.T, srv *llmtest.Server, settings string) *env {
	t.Helper()
	ws := tempWS(t)
	t.Setenv("HOME", filepath.Dir(ws))
	e := newEnvSettings(t, ws, settings)
	e.write(filepath.Join(e.agent, "models.json"), `{"providers": {"vis": {"baseUrl": "`+srv.URL+`/v1", "api": "openai-completions", "apiKey": "vk",
		"models": [{"id": "vmodel", "input": ["text", "image"], "maxTokens": 2048}]}}}`)
	e.runner = registryWith(t, e, "describe_image")
	e.vision(t)
	return e
}

// vision resolves the vision model from the files as a session does at its start (and at
// /reload), and gives it to the session's describe_image.
func (e *env) vision(t *testing.T) {
	t.Helper()
	no := false
	cfg, err := config.Load(config.Options{AgentDir: e.agent, ProjectDir: e.dir, Home: filepath.Dir(e.dir), Approve: &no,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	v, err := cfg.VisionModel()
	vision.SetVision(e.session(), vision.Vision{Configured: v.Configured, Provider: v.Provider, ModelID: v.ID, Model: v.Model, Proxy: v.Proxy, Err: err})
}

var pngBytes = []byte("\x89PNG\r\n\x1a\n fake png body")

func TestDescribeImage(t *testing.T) {
	srv := llmtest.New(t)
	e := visionEnv(t, srv, `{"defaultProvider": "vis", "visionConfig": {"model": "vmodel"}}`)
	e.write("a.png", string(pngBytes))
	e.write("b.jpg", string(pngBytes)) // a PNG behind a .jpg name: the magic bytes win

	srv.Push(llmtest.Turn{Text: "  一只猫。\n", Usage: llmtest.Usage{Input: 100, Output: 20}})
	r := e.call("describe_image", `{"path": ["a.png", " b.jpg "], "prompt": "图里是什么？"}`)
	if r.IsError {
		t.Fatalf("error: %s", r.Text())
	}
	wantPrompt := "共 2 张图片，请按顺序逐张描述，说明每张图片分别的内容。图里是什么？"
	want := "[a.png, b.jpg]\n一只猫。\n[模型: vmodel, tokens: 120]"
	if r.Text() != want {
		t.Errorf("text %q", r.Text())
	}
	var d struct {
		Provider, Model, Prompt, Output string
		Paths                           []string
		Count                           int
		Pendant                         struct{ Markdown string }
	}
	json.Unmarshal(r.Details, &d)
	if d.Provider != "vis" || d.Model != "vmodel" || d.Prompt != wantPrompt || d.Output != want || d.Count != 2 || strings.Join(d.Paths, ",") != "a.png,b.jpg" {
		t.Errorf("details %s", r.Details)
	}
	wantMD := "## 图片识别\n\n**图片**: `a.png`, `b.jpg`\n**视觉模型**: `vis/vmodel`\n**Prompt**: " + wantPrompt + "\n\n### 识别结果\n\n一只猫。\n\n- -\n[模型: vmodel, tokens: 120]"
	if d.Pendant.Markdown != wantMD {
		t.Errorf("pendant %q", d.Pendant.Markdown)
	}

	// The request: the system prompt, then one user message with both images as data URLs
	// and the prompt last, max tokens from the model.
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[0].Body)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	if strings.Count(body, dataURL) != 2 {
		t.Errorf("images not sent as PNG data URLs: %s", body)
	}
	sys, _ := json.Marshal(vision.VisionSystemPrompt)
	if !strings.Contains(body, string(sys)) || !strings.Contains(body, wantPrompt) || !strings.Contains(body, `"max_completion_tokens":2048`) && !strings.Contains(body, `"max_tokens":2048`) {
		t.Errorf("request body %s", body)
	}
	if reqs[0].Header.Get("Authorization") != "Bearer vk" {
		t.Errorf("auth %q", reqs[0].Header.Get("Authorization"))
	}
}

func TestDescribeImageTexts(t *testing.T) {
	srv := llmtest.New(t)
	e := visionEnv(t, srv, `{"visionConfig": {"provider": "vis", "model": "vmodel"}}`)
	e.write("a.png", string(pngBytes))
	e.write("empty.png", "")
	e.write("doc.txt", "x")
	os.MkdirAll(filepath.Join(e.dir, "dir.png"), 0o755)
	cases := []struct{ args, want string }{
		{`{}`, "需要提供 path（本地图片路径，单个或数组，数组一次识别多张）。"},
		{`{"path": ["  "]}`, "需要提供 path（本地图片路径，单个或数组，数组一次识别多张）。"},
		{`{"path": "doc.txt"}`, "识别失败: 不支持的文件格式: .txt"},
		{`{"path": "noext"}`, "识别失败: 不支持的文件格式: (无扩展名)"},
		{`{"path": "empty.png"}`, "识别失败: 文件为空: " + filepath.Join(e.dir, "empty.png")},
		{`{"path": "dir.png"}`, "识别失败: 不是普通文件: " + filepath.Join(e.dir, "dir.png")},
		{`{"path": "missing.png"}`, "识别失败: 无法读取文件 " + filepath.Join(e.dir, "missing.png") + ": ENOENT: no such file or directory, stat '" + filepath.Join(e.dir, "missing.png") + "'"},
	}
	for _, tc := range cases {
		r := e.call("describe_image", tc.args)
		if !r.IsError || r.Text() != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, r.Text(), tc.want)
		}
	}
	// An empty answer is the seed's failure.
	srv.Push(llmtest.Turn{Text: "   "})
	if r := e.call("describe_image", `{"path": "a.png"}`); r.Text() != "识别失败: API 未返回内容" {
		t.Errorf("empty answer: %q", r.Text())
	}
	if got := srv.Requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), jsonStr(vision.VisionDefaultPrompt)) {
		t.Errorf("default prompt not sent")
	}

	// A model the registry does not know, and no visionConfig model.
	e.write(filepath.Join(e.agent, "settings.json"), `{"visionConfig": {"provider": "vis", "model": "nope"}}`)
	e.vision(t)
	if r := e.call("describe_image", `{"path": "a.png"}`); r.Text() != "在模型注册表中找不到视觉模型「vis/nope」。请检查 models.json 是否配置了该 provider 与该模型。" ||
		string(r.Details) != `{"error":"model not found: vis/nope"}` {
		t.Errorf("not found: %q %s", r.Text(), r.Details)
	}
	e.write(filepath.Join(e.agent, "settings.json"), `{"visionConfig": {}}`)
	e.vision(t)
	if r := e.call("describe_image", `{"path": "a.png"}`); r.Text() != `未配置视觉模型。请在 `+filepath.Join(e.agent, "settings.json")+` 添加 visionConfig，例如: { "provider": "axonhub", "model": "mimo-v2.5" }` {
		t.Errorf("not configured: %q", r.Text())
	}
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
