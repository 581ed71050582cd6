package openai

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// TestMain has every chunk the package's tests stream (the recorded cassettes, the scripted
// servers, the differential runs against pi) decoded by both decoders as well (not while benchmarking: the record would be measured).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		checkChunk = func(data string) { seenChunks.Store(data, true) }
	}
	code := m.Run()
	if code == 0 {
		var bad []string
		seenChunks.Range(func(k, _ any) bool {
			if msg := compareChunk(k.(string)); msg != "" {
				bad = append(bad, msg)
			}
			return true
		})
		for _, b := range bad {
			os.Stderr.WriteString("fast chunk decoder differs: " + b + "\n")
		}
		if len(bad) > 0 {
			code = 1
		}
	}
	os.Exit(code)
}

var seenChunks sync.Map

// compareChunk decodes data with both decoders: where the fast one answers, it must give
// encoding/json's result; "" when they agree.
func compareChunk(data string) string {
	var fast, slow chunk
	ok := fastChunk(data, &fast)
	err := json.Unmarshal([]byte(data), &slow)
	if !ok {
		return ""
	}
	if err != nil {
		return data + ": encoding/json refuses it: " + err.Error()
	}
	if !reflect.DeepEqual(fast, slow) {
		a, _ := json.Marshal(fast)
		b, _ := json.Marshal(slow)
		return data + ":\n fast " + string(a) + "\n json " + string(b)
	}
	return ""
}

// chunkData is the data of every event of an SSE body.
func chunkData(t testing.TB, body string) []string {
	var out []string
	r := sse.NewReader(strings.NewReader(body))
	for {
		ev, err := r.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			return out
		}
		out = append(out, ev.Data)
	}
}

// recordedChunks are the chunks of every recorded openai-completions stream.
func recordedChunks(t testing.TB) []string {
	var out []string
	for _, body := range recordedBodies(t) {
		out = append(out, chunkData(t, body)...)
	}
	if llmtest.FixturesDir() != "" && len(out) < 50 {
		t.Fatalf("only %d recorded chunks", len(out))
	}
	return out
}

// recordedBodies are the bodies of every recorded openai-completions stream (none without
// the shared fixtures).
func recordedBodies(t testing.TB) []string {
	root := llmtest.FixturesDir()
	if root == "" {
		t.Log("shared/fixtures/providers not found (set PIGO_SHARED_DIR): no recorded streams")
		return nil
	}
	var out []string
	for _, dir := range []string{"openai", "openai-compatible", "openrouter"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
		for _, f := range files {
			if strings.Contains(filepath.Base(f), "responses") {
				continue
			}
			cas, err := llmtest.LoadCassette(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range cas.Interactions {
				if in.Response.Code == 200 {
					out = append(out, in.Response.Body)
				}
			}
		}
	}
	return out
}

// edgeChunks are chunks the fast decoder must decode or leave to encoding/json correctly.
var edgeChunks = []string{
	`{"choices":[{"delta":{"content":"say \"hi\"\n\ttab \u00e9 \ud83d\ude00 \ud800 \\ \/"}}]}`,
	`{"choices":[{"delta":{"content":"caf\u00e9","reasoning_content":"th\u0069nk"}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"raw \xff\xfe bytes \xe2\x82\"}}]}",
	"{\"choices\":[{\"delta\":{\"content\":\"ctrl \x01\"}}]}",
	`{"choices":[{"delta":{"content":5}}]}`,
	`{"choices":[{"delta":{"content":null,"tool_calls":null,"reasoning":null}}]}`,
	`{"choices":[{"delta":{"content":["a"]}}]}`,
	`{"choices":[{"delta":{"Content":"case"}}]}`,
	`{"ID":"x","choices":[]}`,
	`{"id":"a","id":"b","choices":[]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":1.0,"id":"c"}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":-0,"id":"c","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":99999999999999999999}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":null,"id":null,"function":null}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"name":null,"arguments":null}}]}}]}`,
	`{"choices":[null]}`,
	`{"choices":null,"usage":null,"error":null}`,
	`{"choices":{}}`,
	`{"choices":[{"delta":null,"finish_reason":null,"usage":null}]}`,
	`{"choices":[{"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":1, "cost": 1e-3}}]}`,
	` { "usage" : { "prompt_tokens" : 10 , "x" : [ true , false , null , -1.5E+3 ] } , "choices" : [ ] } `,
	`{"choices":[],"extra":{"a":[{"b":"\u12"}]}}`,
	`{"choices":[],"extra":"\q"}`,
	`{"choices":[],"extra":01}`,
	`{"choices":[],"extra":1.}`,
	`{"choices":[],"extra":-}`,
	`{"choices":[],"extra":tru}`,
	`{"choices":[]}x`,
	`{"choices":[]`,
	`{"choices":[],}`,
	`{"choices":[1,]}`,
	`null`,
	`[]`,
	``,
	`{"error":{"message":"bad"},"choices":[]}`,
	"{\"choices\":[{\"delta\":{\"k\u212a\":1}}]}",
	`{"choices":[{"delta":{"content":"x","reasoning_details":[{"type":"reasoning.text","text":"t"}]}}]}`,
	`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"system_fingerprint":"fp"}`,
	`{"choices":[{"delta":{"content":"` + strings.Repeat("long text ", 500) + `"}}]}`,
	`{"choices":[{"delta":{"content":"` + strings.Repeat("é", 300) + `"}}]}`,
	`{"choices":[],"deep":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
}

func TestFastChunkMatchesEncodingJSON(t *testing.T) {
	var all []string
	all = append(all, recordedChunks(t)...)
	for _, body := range llmtest.FuzzSeeds(llmtest.OpenAICompletions) {
		all = append(all, chunkData(t, body)...)
	}
	all = append(all, chunkData(t, llmtest.Render(llmtest.OpenAICompletions, longTurn()))...)
	all = append(all, edgeChunks...)
	for _, d := range all {
		if msg := compareChunk(d); msg != "" {
			t.Error(msg)
		}
	}
}

// TestFastChunkTakesRealChunks fails when the fast decoder leaves the chunks real servers send
// to encoding/json (it would be correct, and as slow as before).
func TestFastChunkTakesRealChunks(t *testing.T) {
	for _, d := range append(recordedChunks(t), edgeChunks[:3]...) {
		if strings.HasPrefix(d, "[DONE]") {
			continue
		}
		var ch chunk
		if !fastChunk(d, &ch) {
			t.Errorf("left to encoding/json: %.200s", d)
		}
	}
	for _, d := range []string{edgeChunks[3], edgeChunks[4], edgeChunks[7], edgeChunks[9]} {
		var ch chunk
		if fastChunk(d, &ch) {
			t.Errorf("taken: %s", d)
		}
	}
}

func TestScanPlain(t *testing.T) {
	for _, tc := range []struct {
		s            string
		plain, ascii bool
	}{
		{"", true, true},
		{"hello world, a long line", true, true},
		{"hello world\x1f a long line", false, true},
		{"hello wor\x7fld é a long line", true, false},
		{"éééééééé\x01", false, false},
		{"abcdefg\x00", false, true},
		{"abcdefgh\xff", true, false},
		{"\xffabcdefg\x19xxxxxxxx", false, false},
	} {
		plain, ascii := scanPlain(tc.s)
		if plain != tc.plain || (plain && ascii != tc.ascii) {
			t.Errorf("%q: %v %v", tc.s, plain, ascii)
		}
	}
}

func FuzzFastChunk(f *testing.F) {
	for _, d := range recordedChunks(f) {
		f.Add(d)
	}
	for _, d := range edgeChunks {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if msg := compareChunk(data); msg != "" {
			t.Error(msg)
		}
	})
}

// TestScanPlainBlocks: scanPlain (four words a step, then one) against a byte at a time, for a
// control character, DEL, a high byte or none at every position of strings of up to 100 bytes
// (across the 32-byte steps and the word tail), alone and after a high byte.
func TestScanPlainBlocks(t *testing.T) {
	ref := func(s string) (plain, ascii bool) {
		ascii = true
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 {
				return false, false
			}
			if s[i] >= 0x80 {
				ascii = false
			}
		}
		return true, ascii
	}
	for n := 0; n <= 100; n++ {
		for at := 0; at < n; at++ {
			for _, c := range []byte{0x00, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff} {
				for _, high := range []int{-1, 0, n - 1, at / 2} {
					b := []byte(strings.Repeat("a", n))
					if high >= 0 {
						b[high] = 0xe9
					}
					b[at] = c
					s := string(b)
					wp, wa := ref(s)
					gp, ga := scanPlain(s)
					if gp != wp || (wp && ga != wa) {
						t.Fatalf("%q: got %v %v, want %v %v", s, gp, ga, wp, wa)
					}
				}
			}
		}
	}
}
