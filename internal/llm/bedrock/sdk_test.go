package bedrock_test

// github.com/aws/aws-sdk-go-v2/service/bedrockruntime as a test-only oracle (D17). The SDK's
// JSON codecs are internal, so the request check goes the other way round: the SDK, given the
// same conversation in its own types, sends the body pigo sends (compared as JSON values). The
// SDK, streaming from the loopback server, accumulates the same message pigo assembles from
// the same event stream.

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/bedrock"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func sdkClient(srv *llmtest.Server) *bedrockruntime.Client {
	return bedrockruntime.NewFromConfig(aws.Config{Region: "us-east-1", RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", secret, "")},
		func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

func asValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func TestSDKSendsTheSameBody(t *testing.T) {
	clearAWS(t)
	f := false
	c := &llm.Context{SystemPrompt: "Be brief.",
		Tools: []llm.Tool{{Name: "ls", Description: "List files", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("look"), {Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, Timestamp: 1},
			{Role: llm.RoleAssistant, API: bedrock.API, Provider: "amazon-bedrock", Model: "amazon.nova-pro-v1:0", StopReason: llm.StopToolUse, Timestamp: 2, Content: []llm.Content{
				{Type: llm.TypeText, Text: "Looking."},
				{Type: llm.TypeToolCall, ID: "tooluse_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)}}},
			{Role: llm.RoleToolResult, ToolCallID: "tooluse_1", ToolName: "ls", Content: []llm.Content{llm.TextBlock("a.txt")}, IsError: &f, Timestamp: 3},
		}}
	m := &llm.Model{Provider: "amazon-bedrock", ID: "amazon.nova-pro-v1:0", Input: []string{"text", "image"}, MaxTokens: 10000, ContextWindow: 300000,
		Env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1"}}
	msg, srv := stream(t, m, c, nil, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	if msg.StopReason != llm.StopStop {
		t.Fatalf("pigo: %s", msg.ErrorMessage)
	}
	pigo := srv.Requests()[0].Body
	var sent struct {
		InferenceConfig struct{ MaxTokens int32 } `json:"inferenceConfig"`
	}
	_ = json.Unmarshal(pigo, &sent)

	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
	in := &bedrockruntime.ConverseStreamInput{
		ModelId: aws.String(m.ID),
		Messages: []types.Message{
			{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "look"},
				&types.ContentBlockMemberImage{Value: types.ImageBlock{Format: types.ImageFormatPng, Source: &types.ImageSourceMemberBytes{Value: png}}}}},
			{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Looking."},
				&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("ls"),
					Input: document.NewLazyDocument(map[string]any{"path": "."})}}}},
			{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
				ToolUseId: aws.String("tooluse_1"), Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: "a.txt"}},
				Status: types.ToolResultStatusSuccess}}}},
		},
		System:          []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "Be brief."}},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(sent.InferenceConfig.MaxTokens)},
		ToolConfig: &types.ToolConfiguration{Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("ls"),
			Description: aws.String("List files"), InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{
				"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}})}}}}},
	}
	out, err := sdkClient(srv).ConverseStream(context.Background(), in)
	if err != nil {
		t.Fatalf("sdk: %v", err)
	}
	for range out.GetStream().Events() {
	}
	out.GetStream().Close()
	sdk := srv.Requests()[1]
	if got, want := asValue(t, sdk.Body), asValue(t, pigo); !reflect.DeepEqual(got, want) {
		t.Errorf("bodies differ:\n sdk %s\npigo %s", sdk.Body, pigo)
	}
	if sdk.Path != srv.Requests()[0].Path {
		t.Errorf("paths: sdk %s, pigo %s", sdk.Path, srv.Requests()[0].Path)
	}
}

// sdkReply is a reply in pi's terms.
type sdkReply struct {
	Thinking, Signature, Text string
	Calls                     []any
	Stop                      string
	Input, Output, CacheRead  int
	CacheWrite                int
}

func TestSDKStreamAgrees(t *testing.T) {
	clearAWS(t)
	for _, tr := range []llmtest.Turn{
		{Blocks: []llmtest.Block{{Kind: "thinking", Text: "Let me look.", Signature: "sig-1"}, {Kind: "text", Text: "Here."}},
			Usage: llmtest.Usage{Input: 100, Output: 20, CacheRead: 40, CacheWrite: 7}},
		{Text: "Listing.", ToolCalls: []llmtest.ToolCall{{ID: "tooluse_a", Name: "ls", Args: `{"path":"src","depth":2}`}, {ID: "tooluse_b", Name: "read", Args: `{"path":"a.txt"}`}},
			Usage: llmtest.Usage{Input: 50, Output: 9}},
		{Text: "cut off", StopReason: "length", Usage: llmtest.Usage{Input: 5, Output: 100}},
	} {
		m := &llm.Model{Provider: "amazon-bedrock", ID: "us.anthropic.claude-sonnet-4-6", Reasoning: true, MaxTokens: 64000, ContextWindow: 200000,
			Env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1"}}
		msg, srv := stream(t, m, ctx1(), nil, tr, tr)
		if msg.StopReason == llm.StopError {
			t.Fatalf("pigo: %s", msg.ErrorMessage)
		}
		var mine sdkReply
		for _, b := range msg.Content {
			switch b.Type {
			case llm.TypeThinking:
				mine.Thinking += b.Thinking
				mine.Signature += b.ThinkingSignature
			case llm.TypeText:
				mine.Text += b.Text
			case llm.TypeToolCall:
				mine.Calls = append(mine.Calls, []any{b.ID, b.Name, asValue(t, b.Arguments)})
			}
		}
		mine.Stop = msg.StopReason
		mine.Input, mine.Output, mine.CacheRead, mine.CacheWrite = msg.Usage.Input, msg.Usage.Output, msg.Usage.CacheRead, msg.Usage.CacheWrite

		out, err := sdkClient(srv).ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{ModelId: aws.String(m.ID),
			Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "hi"}}}}})
		if err != nil {
			t.Fatalf("sdk: %v", err)
		}
		var sdk sdkReply
		type call struct{ id, name, args string }
		calls := map[int32]*call{}
		var order []int32
		for ev := range out.GetStream().Events() {
			switch e := ev.(type) {
			case *types.ConverseStreamOutputMemberContentBlockStart:
				if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
					calls[*e.Value.ContentBlockIndex] = &call{id: *tu.Value.ToolUseId, name: *tu.Value.Name}
					order = append(order, *e.Value.ContentBlockIndex)
				}
			case *types.ConverseStreamOutputMemberContentBlockDelta:
				switch d := e.Value.Delta.(type) {
				case *types.ContentBlockDeltaMemberText:
					sdk.Text += d.Value
				case *types.ContentBlockDeltaMemberToolUse:
					calls[*e.Value.ContentBlockIndex].args += *d.Value.Input
				case *types.ContentBlockDeltaMemberReasoningContent:
					switch r := d.Value.(type) {
					case *types.ReasoningContentBlockDeltaMemberText:
						sdk.Thinking += r.Value
					case *types.ReasoningContentBlockDeltaMemberSignature:
						sdk.Signature += r.Value
					}
				}
			case *types.ConverseStreamOutputMemberMessageStop:
				sdk.Stop = map[types.StopReason]string{types.StopReasonEndTurn: llm.StopStop, types.StopReasonToolUse: llm.StopToolUse,
					types.StopReasonMaxTokens: llm.StopLength}[e.Value.StopReason]
			case *types.ConverseStreamOutputMemberMetadata:
				u := e.Value.Usage
				sdk.Input, sdk.Output = int(aws.ToInt32(u.InputTokens)), int(aws.ToInt32(u.OutputTokens))
				sdk.CacheRead, sdk.CacheWrite = int(aws.ToInt32(u.CacheReadInputTokens)), int(aws.ToInt32(u.CacheWriteInputTokens))
			}
		}
		// The server closes the connection after the last event, which the SDK's reader may
		// report once it has delivered everything.
		if err := out.GetStream().Err(); err != nil && (sdk.Stop == "" || sdk.Input == 0) {
			t.Fatalf("sdk stream: %v", err)
		}
		out.GetStream().Close()
		for _, i := range order {
			sdk.Calls = append(sdk.Calls, []any{calls[i].id, calls[i].name, asValue(t, []byte(calls[i].args))})
		}
		if !reflect.DeepEqual(mine, sdk) {
			t.Errorf("pigo %+v\n sdk %+v", mine, sdk)
		}
	}
}
