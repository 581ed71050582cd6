package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// fill sets every exported field of the struct v points to a non-zero value derived from
// seed, recursing into structs, pointers and slices (one element).
func fill(v reflect.Value, seed int) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() || v.Type().Field(i).Tag.Get("json") == "-" {
			continue
		}
		fillValue(f, seed+i)
	}
}

func fillValue(f reflect.Value, n int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(fmt.Sprintf("v%d \"q\"\n\u00e9", n))
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Int, reflect.Int64:
		f.SetInt(int64(1000 + n))
	case reflect.Float64:
		f.SetFloat(float64(n) + 0.25)
	case reflect.Ptr:
		p := reflect.New(f.Type().Elem())
		fillValue(p.Elem(), n)
		f.Set(p)
	case reflect.Struct:
		fill(f, n*10)
	case reflect.Slice:
		if f.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			f.SetBytes([]byte(fmt.Sprintf(`{"k":[%d,"x"]}`, n)))
			return
		}
		s := reflect.MakeSlice(f.Type(), 1, 1)
		fillValue(s.Index(0), n)
		f.Set(s)
	}
}

// TestDecodeEveryField: every JSON field of llm.Message, llm.Content and llm.Usage survives a
// write and a read. It fails when a field is added there and not to decode.go.
func TestDecodeEveryField(t *testing.T) {
	for _, role := range []string{llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult} {
		var m llm.Message
		fill(reflect.ValueOf(&m).Elem(), 1)
		m.Role = role
		for i := range m.Content {
			m.Content[i].Type = llm.TypeToolCall // a type whose marshaller writes every field
		}
		var all llm.Content
		fill(reflect.ValueOf(&all).Elem(), 7)
		m.Content = append(m.Content, all)
		line, err := json.Marshal(map[string]any{"type": "message", "id": "a1", "parentId": nil, "timestamp": "t", "message": plainMessage(m)})
		if err != nil {
			t.Fatal(err)
		}
		e, err := decodeEntry(line)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		checkQuoted(t, line, e)
		unquoteBlocks(e.Message.LLM)
		if !reflect.DeepEqual(*e.Message.LLM, m) {
			t.Errorf("%s: decoded\n%#v\nwant\n%#v", role, *e.Message.LLM, m)
		}
	}
}

// plainMessage marshals every field of m (llm.Message's own marshaller leaves some out by
// type), as a map keyed by the JSON names.
func plainMessage(m llm.Message) map[string]any {
	type plain llm.Message
	b, _ := json.Marshal(plain(m))
	var out map[string]any
	json.Unmarshal(b, &out)
	var blocks []map[string]any
	for _, c := range m.Content {
		type pc llm.Content
		b, _ := json.Marshal(pc(c))
		var o map[string]any
		json.Unmarshal(b, &o)
		blocks = append(blocks, o)
	}
	out["content"] = blocks
	return out
}

// knownKeys are the JSON names the decoders read; a key that matches one only when case is
// ignored is read by encoding/json and not by pi (nor by the one-pass decoder).
var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range []reflect.Type{reflect.TypeOf(oracleEntryWire{}), reflect.TypeOf(oracleMsgWire{}), reflect.TypeOf(llm.Message{}), reflect.TypeOf(llm.Content{}), reflect.TypeOf(llm.Usage{}), reflect.TypeOf(llm.Cost{})} {
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" {
				name = t.Field(i).Name
			}
			m[strings.ToLower(name)] = true
		}
	}
	return m
}()

// oracleIncomparable reports inputs on which encoding/json differs from JSON.parse by design:
// a key that matches a field only case-insensitively, or a key repeated in one object (encoding/json
// merges a repeated object into the first; JavaScript keeps the last).
func oracleIncomparable(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next token is a key
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if k, ok := tok.(string); ok {
				if top.keys[k] || knownKeys[strings.ToLower(k)] && !exactKnown(k) {
					return true
				}
				top.keys[k] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true
		}
	}
}

// unquoteBlocks drops the JSON forms recorded on m's content blocks.
func unquoteBlocks(m *llm.Message) {
	for i := range m.Content {
		m.Content[i] = m.Content[i].Unquoted()
	}
}

// checkQuoted fails when a JSON form recorded on a block of e is not what AppendJSString
// writes for the text or thinking it stands for.
func checkQuoted(t *testing.T, line []byte, e *Entry) {
	t.Helper()
	if e == nil || e.Message == nil || e.Message.LLM == nil {
		return
	}
	for _, c := range e.Message.LLM.Content {
		for _, v := range []struct {
			s string
			j any
		}{{c.Text, c.TextJSON()}, {c.Thinking, c.ThinkingJSON()}} {
			if got, want := llm.AppendJSON(nil, v.j), llm.AppendJSString(nil, v.s); !bytes.Equal(got, want) {
				t.Fatalf("line %q: recorded form %s, AppendJSString writes %s", line, got, want)
			}
		}
	}
}

func exactKnown(k string) bool {
	for _, t := range []reflect.Type{reflect.TypeOf(oracleEntryWire{}), reflect.TypeOf(oracleMsgWire{}), reflect.TypeOf(llm.Message{}), reflect.TypeOf(llm.Content{}), reflect.TypeOf(llm.Usage{}), reflect.TypeOf(llm.Cost{})} {
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == k {
				return true
			}
		}
	}
	return false
}

// normalize makes entries from the two decoders comparable: the line bytes, the JSON forms
// the one-pass decoder records on content blocks (checked by checkQuoted), and a custom
// message's content, which the oracle re-encoded and the one-pass decoder keeps as written.
func normalize(e *Entry) {
	e.setRaw(nil)
	// The oracle gives every entry its EntryData; the decoder gives one to a message entry
	// only when it has one of those fields.
	if e.EntryData != nil && reflect.DeepEqual(*e.EntryData, EntryData{}) {
		e.EntryData = nil
	}
	if e.Message != nil && e.Message.LLM != nil {
		unquoteBlocks(e.Message.LLM)
	}
	if e.Message != nil && e.Message.Custom != nil {
		c := *e.Message.Custom
		b, _ := json.Marshal(customContent(c.Content))
		c.Content = b
		e.Message.Custom = &c
	}
}

func checkSameDecode(t *testing.T, line []byte) {
	t.Helper()
	want, werr := oracleDecodeEntry(append([]byte(nil), line...))
	got, gerr := decodeEntry(append([]byte(nil), line...))
	if werr != nil {
		if gerr == nil && !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		return // the one-pass decoder may accept what encoding/json refused (a fraction in an integer)
	}
	if oracleIncomparable(line) {
		return
	}
	if gerr != nil {
		t.Fatalf("refused %q: %v (encoding/json accepted it)", line, gerr)
	}
	checkQuoted(t, line, got)
	normalize(want)
	normalize(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("line %q\ngot  %#v\nwant %#v", line, got, want)
	}
	if got.Message != nil && want.Message != nil && !reflect.DeepEqual(got.Message.LLM, want.Message.LLM) {
		t.Fatalf("line %q: message\ngot  %#v\nwant %#v", line, got.Message.LLM, want.Message.LLM)
	}
}

var decodeSeeds = []string{
	`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi \"there\"\n","timestamp":5}}`,
	`{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"x\u00e9\ud83d\ude00"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a b"}}],"usage":{"input":1,"output":2,"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":6}}`,
	`{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"\t\\"}],"details":{"x":[1,2,{"y":null}]},"isError":false,"timestamp":7}}`,
	`{"type":"message","id":"d","parentId":"c","timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":0,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/x","timestamp":8}}`,
	`{"type":"message","id":"e","parentId":"d","timestamp":"t","message":{"role":"custom","customType":"note","content":[{"type":"text","text":"n"}],"display":true,"details":null,"timestamp":9}}`,
	`{"type":"message","id":"f","parentId":"e","timestamp":"t","message":{"role":"somethingNew","content":{"odd":true},"x":[1]}}`,
	`{"type":"compaction","id":"g","parentId":"f","timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":123.0,"details":{"readFiles":[],"modifiedFiles":["a"]},"fromHook":true}`,
	`{"type":"custom_message","customType":"c","content":"text","display":false,"id":"h","parentId":"g","timestamp":"t"}`,
	`{"type":"label","id":"i","parentId":"h","timestamp":"t","targetId":"a","label":null}`,
	`{"type":"session_info","id":"j","parentId":"i","timestamp":"t","name":"  a name "}`,
	`{"type":"model_change","id":"k","parentId":"j","timestamp":"t","provider":"p","modelId":"m","unknown":{"deep":[[[]]]}}`,
	`{"type":"message","id":"l","message":{"role":"user","content":null,"timestamp":1.5}}`,
	`{"type":"message","id":"m","message":{"role":"user","content":[null,{"type":"image","data":"AAAA","mimeType":"image/png"}]}}`,
	`{"type":"message","id":"n","message":{"role":"assistant","content":[],"usage":null,"Role":"user"}}`,
	`{"type":"message","message":{"role":"user","content":"bad \x80 utf8 \ud800 lone"}}`,
	`{"type":"message","message":{"role":"user","content":5}}`,
	`{"type":"message","id":1}`,
	`{"a":1e400}`,
	`{"type":"message", "id" : "sp" , "message" : { "role" : "user" , "content" : [ ] } }`,
	`{"type":"x"} trailing`,
	`{"type":"x",}`,
	`{"type":"\u0041\/"}`,
	`null`,
	`{}`,
	"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"aaaaaaaaaaaaaaaa\\\"bbbbbbbbbbbbbbbbbbb\\\\ccccccccccccccc\\u00e9dddddddddddd\"}}",
	"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x01aaaaaaaaaaaaa\"}}",
	"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\xff\xfeaaaaaaaaaa\\naaaaaaaa\xc3\"}}",
	"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"\u2028\u2029 \\ud83d\\ude00\\ud83d x \\udc00\\u0000\x7f\"}}",
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkSameDecode(t, []byte(s))
	}
}

// FuzzDecodeEntry: the one-pass decoder gives the entry encoding/json gave for every line
// encoding/json accepts (apart from the documented differences above), accepts no line that
// is not JSON, and never panics.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkSameDecode(t, line)
		if _, err := decodeHeader(line); err == nil && !json.Valid(line) {
			t.Fatalf("header accepted invalid JSON %q", line)
		}
	})
}

func writeFile(t testing.TB, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const testHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`

// TestLongLineSkipped: a line over MaxLineBytes is skipped with a warning naming the file and
// line, the lines around it load, and it is never held whole: reading a file with a line 40
// times the cap allocates a few caps' worth, not the line.
func TestLongLineSkipped(t *testing.T) {
	defer func(n int) { MaxLineBytes = n }(MaxLineBytes)
	MaxLineBytes = 64 << 10
	long := `{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"` + strings.Repeat("x", 40*MaxLineBytes) + `"}}`
	p := writeFile(t, "s.jsonl", testHeader,
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"before"}}`,
		long,
		`{"type":"message","id":"c","parentId":"a","timestamp":"t","message":{"role":"assistant","content":"after"}}`)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s, err := Read(p)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(s.Context().Messages); !reflect.DeepEqual(got, []string{"user:before", "assistant:after"}) {
		t.Errorf("context %q", got)
	}
	want := fmt.Sprintf("%s:3: ignoring a line of %d bytes (longer than 0 MiB; it was not loaded)", p, len(long))
	if len(s.Warnings) != 1 || s.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", s.Warnings, want)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > uint64(8*MaxLineBytes) {
		t.Errorf("reading allocated %d bytes for a line of %d (cap %d)", alloc, len(long), MaxLineBytes)
	}
	info, err := ReadInfo(p)
	if err != nil || info.Messages != 2 || info.FirstMessage != "before" {
		t.Errorf("ReadInfo: %+v, %v", info, err)
	}
}

// TestLongLastLine: an over-long line at the end of the file without its newline is skipped,
// and the next append starts a new line.
func TestLongLastLine(t *testing.T) {
	defer func(n int) { MaxLineBytes = n }(MaxLineBytes)
	MaxLineBytes = 1 << 10
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(testHeader+"\n"+`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":"x"}}`+"\n"+strings.Repeat("y", 5000)), 0o644)
	s, err := Open(p, OpenOptions{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], ":3: ignoring a line of 5000 bytes") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if _, err := s.AppendMessage(user("next")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, _ := os.ReadFile(p)
	if !bytes.HasSuffix(b, []byte(strings.Repeat("y", 5000)+"\n"+`{"type":"message"`)) && !bytes.Contains(b, []byte(strings.Repeat("y", 5000)+"\n{")) {
		t.Errorf("the append did not start a new line")
	}
}

// TestNotRegular: a FIFO or a device is refused at once (opening a FIFO would wait for a
// writer; a device would be read forever).
func TestNotRegular(t *testing.T) {
	if _, err := Read("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := ReadInfo("/dev/zero"); err == nil {
		t.Errorf("ReadInfo /dev/zero: no error")
	}
}

// TestReadInfoMatchesInfo: the skimmed listing facts equal those of the loaded session.
func TestReadInfoMatchesInfo(t *testing.T) {
	p := writeTurns(t, 30)
	s, _ := Read(p)
	s.AppendSessionInfo("named")
	cases := map[string][]string{
		"turns": readLines(t, p),
		"branches": {testHeader,
			`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"first"},{"type":"image","data":"x"},{"type":"text","text":"part"}]}}`,
			`{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":"r","timestamp":1767225600000}}`,
			`{"type":"session_info","id":"n","parentId":"b","timestamp":"t","name":" the name "}`,
			`{"type":"message","id":"c","parentId":"a","timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"","timestamp":5}}`,
			`not json`,
			`{"type":"message","id":"d","parentId":"c","timestamp":"t","message":{"role":"user","content":"second","timestamp":1767225700000}}`},
		"empty-branch": {testHeader, `{"type":"session_info","id":"n","parentId":null,"timestamp":"t","name":"x"}`},
		// Version 1 (no ids, a compaction by index, pi's old hookMessage role, an entry
		// with an id of its own, lines that are not entries): skimmed without migrating.
		"v1": {`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w","parentSession":"/p.jsonl"}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"hookMessage","customType":"x","content":"hook text","display":true,"timestamp":3}}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"old"},{"type":"text","text":"question"}],"timestamp":1}}`,
			`[1,2]`,
			`{"type":"message","id":"x","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old answer"}],"timestamp":1735689603000}}`,
			`{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":10}`,
			`{"type":"session_info","timestamp":"t","name":"old name"}`,
			`{"type":"message","id":"x","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"new"}}`},
		"v1-empty": {`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`},
		"v2": {`{"type":"session","version":2,"id":"s2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`,
			`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"old"}}`},
		"cycle": {testHeader,
			`{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"user","content":"x"}}`,
			`{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"y"}}`},
	}
	// Past the line reader's 1 MiB block, which ReadInfo reuses: what the listing keeps of
	// the first lines (header, name, first message) must not point into reused memory.
	big := []string{`{"type":"session","version":3,"id":"big-session-id","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/a/working/dir","parentSession":"/a/parent.jsonl"}`,
		`{"type":"session_info","id":"n","parentId":null,"timestamp":"t","name":"the big one"}`,
		`{"type":"message","id":"a","parentId":"n","timestamp":"t","message":{"role":"user","content":"the first prompt","timestamp":1767225600000}}`}
	for i := 0; len(big) < 3+3000; i++ {
		big = append(big, fmt.Sprintf(`{"type":"message","id":"m%d","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"%s"}],"timestamp":%d}}`, i, strings.Repeat("z", 1000), 1767225600000+i))
	}
	cases["past-one-block"] = big
	for name, lines := range cases {
		p := writeFile(t, name+".jsonl", lines...)
		before, _ := os.ReadFile(p)
		got, err := ReadInfo(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := Read(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := s.Info(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ReadInfo\n%+v\nInfo\n%+v", name, got, want)
		}
		if cwd, err := ReadCwd(p); err != nil || cwd != got.Cwd {
			t.Errorf("%s: ReadCwd = %q, %v; the listing's cwd is %q", name, cwd, err, got.Cwd)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			t.Errorf("%s: reading changed the file", name)
		}
	}
}

// FuzzReadInfo: for any file, ReadInfo and Read agree on whether it is a session, and on the
// listing facts of one whose lines are all well-typed.
func FuzzReadInfo(f *testing.F) {
	f.Add([]byte(testHeader + "\n" + strings.Join(decodeSeeds, "\n")))
	f.Add([]byte(testHeader + "\n" + decodeSeeds[0] + "\n" + decodeSeeds[1]))
	f.Add([]byte(`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" + strings.Join(decodeSeeds, "\n")))
	f.Add([]byte(`{"type":"session","version":2,"id":"s2","timestamp":"t","cwd":"/"}` + "\n" + decodeSeeds[0]))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(p, data, 0o644)
		got, gerr := ReadInfo(p)
		s, serr := Read(p)
		if (gerr == nil) != (serr == nil) {
			t.Fatalf("ReadInfo error %v, Read error %v", gerr, serr)
		}
		if gerr != nil {
			return
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if t := bytes.TrimSpace(l); len(t) > 0 && json.Valid(t) {
				if _, err := decodeEntry(t); err != nil {
					return // a line open() refuses for a field's type: the skim does not check those
				}
			}
		}
		if want := s.Info(); !reflect.DeepEqual(got, want) {
			t.Fatalf("ReadInfo\n%+v\nInfo\n%+v", got, want)
		}
	})
}

// TestStrSlowExact: a string with escapes is decoded in one pass into a copy of exactly its
// decoded size (it was sized by a first, validating scan to the source's length), and every
// kind of bad string is still refused.
func TestStrSlowExact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"x\ny"`, "x\ny"},
		{`"plain then \u00e9\ud83d\ude00 and \"q\""`, "plain then é😀 and \"q\""},
		{`"bad \ud800 surrogate"`, "bad \ufffd surrogate"},
		{"\"invalid \xff utf-8 \\t\"", "invalid \ufffd utf-8 \t"},
	} {
		r := jreader{b: []byte(c.in + ",")}
		got, ok := r.strBytes()
		if !ok || string(got) != c.want || r.i != len(c.in) {
			t.Errorf("%s: %q, %v, at %d", c.in, got, ok, r.i)
		}
		if cap(got) != len(got) {
			t.Errorf("%s: the decoded copy has capacity %d for %d bytes", c.in, cap(got), len(got))
		}
	}
	for _, in := range []string{`"a\`, `"a\x"`, `"a\u12"`, "\"a\\n\x01\"", `"a\n`, `"a\ud800\u12"`} {
		r := jreader{b: []byte(in)}
		if got, ok := r.strBytes(); ok {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}

// TestDecodeMessageAllocs: a message entry is the entry, one allocation for its message with
// what it points to, and its content slice. Decoding allocated the LLM message, the bash run
// and the custom message of every message whatever its role (their addresses were taken for
// the result), and the usage apart: 7 allocations for this line.
func TestDecodeMessageAllocs(t *testing.T) {
	line := []byte(`{"type":"message","id":"a1","parentId":"a0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"x"}},{"type":"text","text":"there"}],"usage":{"input":1,"output":2,"cost":{"total":0.5}},"timestamp":5}}`)
	var e *Entry
	n := testing.AllocsPerRun(100, func() { e, _ = decodeEntry(line) })
	if n > 3 {
		t.Errorf("%v allocations, want 3", n)
	}
	m := e.Message.LLM
	if m.Usage == nil || m.Usage.Input != 1 || m.Usage.Cost.Total != 0.5 || len(m.Content) != 3 || cap(m.Content) != 3 {
		t.Errorf("decoded %+v, usage %+v", m, m.Usage)
	}
}

// TestDecodeRepeatedUsage: a repeated usage key keeps only its last value, null included (the
// usage is decoded into a reused value now, no longer a fresh one each time).
func TestDecodeRepeatedUsage(t *testing.T) {
	for _, c := range []struct {
		usage string
		want  *llm.Usage
	}{
		{`"usage":{"input":1,"output":2},"usage":null`, nil},
		{`"usage":{"input":1,"cacheRead":3},"usage":{"output":2}`, &llm.Usage{Output: 2}},
		{`"usage":null,"usage":{"output":2}`, &llm.Usage{Output: 2}},
	} {
		e, err := decodeEntry([]byte(`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],` + c.usage + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Message.LLM.Usage; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: usage %+v, want %+v", c.usage, got, c.want)
		}
	}
}

// TestEntrySize: an entry is its common fields; the other types' fields are behind a pointer
// (368 bytes an entry before, nearly all of a long session's entries being messages).
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 96 {
		t.Errorf("Entry is %d bytes, want at most 96", n)
	}
	e, err := decodeEntry([]byte(`{"type":"label","id":"l","parentId":null,"timestamp":"t"}`))
	if err != nil || e.EntryData == nil || e.TargetID != "" {
		t.Errorf("an entry other than a message without its fields: %+v, %v", e, err)
	}
	s := InMemory(t.TempDir())
	s.Append(&Entry{Type: TypeLabel})
	s.Append(&Entry{Type: TypeCompaction})
	if c := s.Context(); len(c.Messages) != 1 || s.Label("x") != "" {
		t.Errorf("entries appended without their fields: %+v", c)
	}
}

// TestEveryByteBelowSpace: a byte up to the space put anywhere in a line (between tokens,
// inside strings and numbers) is taken or refused as encoding/json takes or refuses it: only
// the space, tab, newline and carriage return separate tokens (peek's and ws's fast test is
// "above the space").
func TestEveryByteBelowSpace(t *testing.T) {
	for _, line := range []string{
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi\nthere"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x","limit":[1,2.5,-3e2,true,null]}}],"usage":{"input":12,"output":3,"cost":{"total":0.25}},"stopReason":"toolUse","timestamp":17}}`,
		`{"type":"model_change","id":"m1","parentId":"a1","provider":"p","modelId":"m"}`,
	} {
		for p := 0; p <= len(line); p++ {
			for c := 0; c <= ' '+1; c++ {
				checkSameDecode(t, []byte(line[:p]+string(rune(c))+line[p:]))
			}
		}
	}
}
