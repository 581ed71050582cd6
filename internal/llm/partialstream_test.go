package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

var partialDocs = []string{
	`{"path":"a.go","content":"package main\n\nfunc main() {}\n","n":12,"f":-1.5e3,"ok":true,"no":null,"list":[1,"x",{"y":[]}],"e":{}}`,
	`{ "location" : "Florence, Italy" , "unit": "c" }`,
	`{"a":"\u00e9\ud83d\ude00 \"q\" \\ \/ \t","b":[true,false,null,0,10.50]}`,
	`[1,2,{"a":"b"}]`,
	`"just a string"`,
	`{}`,
}

// Fed in any chunks, every prefix gives what the whole-text parser gives for that prefix.
func TestPartialJSONMatchesParseStreaming(t *testing.T) {
	for _, doc := range partialDocs {
		for _, size := range []int{1, 2, 3, 7, 100} {
			var p PartialJSON
			fed := 0
			for fed < len(doc) {
				n := min(size, len(doc)-fed)
				p.Feed(doc[fed : fed+n])
				fed += n
				want := string(ParseStreamingJSON(doc[:fed]))
				if strings.ContainsRune(want, '\ufffd') {
					continue // a split surrogate pair: Go's decoder cannot keep the lone half JavaScript keeps
				}
				if got := string(p.Snapshot()); got != want {
					t.Fatalf("doc %q size %d prefix %q:\n got %s\nwant %s", doc, size, doc[:fed], got, want)
				}
			}
		}
	}
}

func TestPartialJSONFallsBack(t *testing.T) {
	for _, doc := range []string{`{"a":1,"a":2}`, `{"a":NaN}`, `{"a" 1}`, "{\"a\":\"x\u0001y\"}"} {
		var p PartialJSON
		p.Feed(doc)
		if got, want := string(p.Snapshot()), string(ParseStreamingJSON(doc)); got != want {
			t.Errorf("%q: got %s want %s", doc, got, want)
		}
	}
}

func FuzzPartialJSON(f *testing.F) {
	for _, d := range partialDocs {
		f.Add(d, uint8(3))
	}
	f.Fuzz(func(t *testing.T, doc string, size uint8) {
		n := int(size%13) + 1
		var p PartialJSON
		for i := 0; i < len(doc); i += n {
			p.Feed(doc[i:min(i+n, len(doc))])
			out := p.Snapshot()
			if !json.Valid(out) {
				t.Fatalf("invalid JSON %s for %q", out, doc[:min(i+n, len(doc))])
			}
		}
		// For valid documents the final snapshot is the document in JSON.stringify form.
		// (Lone surrogates are skipped: JavaScript keeps them, Go's decoder cannot.)
		if json.Valid([]byte(doc)) && strings.TrimSpace(doc) != "" && !strings.Contains(strings.ToLower(doc), `\ud`) {
			want, err := JSONStringify([]byte(doc))
			if err == nil && string(p.Snapshot()) != string(want) {
				t.Fatalf("%q: got %s want %s", doc, p.Snapshot(), want)
			}
		}
	})
}
