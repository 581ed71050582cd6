package openai

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/catalog"
	"github.com/pigo-agent/pigo/internal/llm"
)

// memoTools is a random tool list: the shipped declarations' names, descriptions and schemas,
// some changed (a description, a schema's bytes, none, one not stringified), in random order.
func memoTools(t *testing.T, r *rand.Rand) []llm.Tool {
	es, err := catalog.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var all []llm.Tool
	for _, e := range es {
		for _, d := range e.Tools {
			all = append(all, llm.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		}
	}
	out := make([]llm.Tool, 1+r.Intn(25))
	for i := range out {
		out[i] = all[r.Intn(len(all))]
		switch r.Intn(8) {
		case 0:
			out[i].Description += " é\u2028\""
		case 1:
			out[i].Parameters = nil
		case 2:
			out[i].Parameters = json.RawMessage(` { "type" : "object", "properties" : { "a\u00e9" : { "type" : "number", "default" : 1.50 } } } `)
		}
	}
	return out
}

// TestToolsMemoSameBody: a body whose tools are the last request's JSON is byte for byte the
// body written from the tools, over a sequence of requests that keep, change (a tool more or
// less, a description, a schema changed in place), and reorder the tools, across models whose
// compat writes `strict` or cache markers, and from several goroutines.
func TestToolsMemoSameBody(t *testing.T) {
	models := append([]*llm.Model{
		{Provider: "together", ID: "m", API: CompletionsAPI, BaseURL: "https://api.together.xyz/v1"}, // no strict mode
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"supportsStrictMode":true}`)},
		{Provider: "zai", ID: "glm-4.6", API: CompletionsAPI, BaseURL: "https://api.z.ai/api/coding/paas/v4", Reasoning: true},
	}, directModels...)
	r := rand.New(rand.NewSource(11))
	tools := memoTools(t, r)
	for round := range 400 {
		switch r.Intn(6) {
		case 0:
			tools = memoTools(t, r)
		case 1:
			if len(tools) > 1 {
				tools = tools[:len(tools)-1]
			}
		case 2:
			tools[r.Intn(len(tools))].Description += "!"
		case 3:
			// Changed in place, the same length: the memo's copy must not follow.
			i := r.Intn(len(tools))
			p := bytes.Clone(tools[i].Parameters)
			if k := bytes.Index(p, []byte(`"string"`)); k >= 0 {
				copy(p[k:], `"number"`)
			}
			tools[i].Parameters = p
			if round%2 == 0 {
				copy(p, p) // the same slice, kept
			}
		}
		m := models[r.Intn(len(models))]
		c := &llm.Context{SystemPrompt: "sys", Messages: randomMessages(r, 1+r.Intn(6)), Tools: tools}
		o := &llm.Options{SessionID: "s", CacheRetention: []string{"short", "long", "none"}[r.Intn(3)]}
		toolsMemoOff = true
		want := BuildBody(m, c, o)
		toolsMemoOff = false
		for range 2 {
			if got := BuildBody(m, c, o); !bytes.Equal(got, want) {
				t.Fatalf("round %d, %s %s: the remembered tools give another body\n got %s\nwant %s", round, m.Provider, m.Compat, got, want)
			}
		}
		if round%3 == 0 && len(tools) > 0 {
			// A schema changed in place after the request: the next body must see it.
			p := tools[0].Parameters
			if k := bytes.Index(p, []byte(`"object"`)); k >= 0 {
				copy(p[k:], `"objecX"`)
				toolsMemoOff = true
				want := BuildBody(m, c, o)
				toolsMemoOff = false
				if got := BuildBody(m, c, o); !bytes.Equal(got, want) {
					t.Fatalf("round %d: a schema changed in place is not seen", round)
				}
				copy(p[k:], `"object"`)
			}
		}
	}
	// Concurrent sessions with different tools share the memo safely.
	toolsMemoOff = true
	m := models[0]
	var cs []*llm.Context
	var wants [][]byte
	for range 4 {
		c := &llm.Context{SystemPrompt: "sys", Messages: randomMessages(r, 3), Tools: memoTools(t, r)}
		cs = append(cs, c)
		wants = append(wants, BuildBody(m, c, &llm.Options{}))
	}
	toolsMemoOff = false
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if got := BuildBody(m, cs[i], &llm.Options{}); !bytes.Equal(got, wants[i]) {
					t.Errorf("session %d: another body", i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestToolsMemoWritesOnce: a second request with the same tools does not convert them again.
func TestToolsMemoWritesOnce(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	c := &llm.Context{SystemPrompt: "sys", Messages: randomMessages(r, 2), Tools: memoTools(t, r)}
	m := directModels[1]
	BuildBody(m, c, &llm.Options{})
	renders := 0
	js := completionsTools.Get(c.Tools, "strict", func() []byte { renders++; return nil })
	if renders != 0 || len(js) == 0 {
		t.Fatalf("the same tools were rendered again (%d)", renders)
	}
}
