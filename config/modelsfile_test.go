package config

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// A models.json with provider keys that differ only in case: pi keeps both (a Map by exact
// key) and a model of provider `openai` takes the entry `openai`. pigo took whichever key Go's
// map order gave last, so the same file gave either base URL from run to run.
func TestProviderEntryExactKey(t *testing.T) {
	doc := `{"providers":{
		"OpenAI":{"baseUrl":"http://127.0.0.1:1/upper","api":"openai-completions","apiKey":"upper","models":[{"id":"m"}]},
		"openai":{"baseUrl":"http://127.0.0.1:2/lower","apiKey":"lower"},
		"Other":{"baseUrl":"http://127.0.0.1:3/other","apiKey":"other","api":"openai-completions","models":[{"id":"o"}]}}}`
	for i := 0; i < 200; i++ {
		c := providerConfig(t, doc, "")
		m, err := c.ProviderModel("openai/gpt-5", "")
		if err != nil {
			t.Fatal(err)
		}
		if m.Provider != "openai" || m.BaseURL != "http://127.0.0.1:2/lower" || m.APIKey != "lower" {
			t.Fatalf("run %d: openai/gpt-5 got provider %q, %s, key %q; want openai's entry", i, m.Provider, m.BaseURL, m.APIKey)
		}
		m, err = c.ProviderModel("OpenAI/m", "")
		if err != nil {
			t.Fatal(err)
		}
		if m.Provider != "OpenAI" || m.BaseURL != "http://127.0.0.1:1/upper" || m.APIKey != "upper" {
			t.Fatalf("run %d: OpenAI/m got provider %q, %s, key %q; want OpenAI's entry", i, m.Provider, m.BaseURL, m.APIKey)
		}
		r, err := c.Credential("openai", "")
		if err != nil || r.APIKey != "lower" {
			t.Fatalf("run %d: credential of openai: %q, %v", i, r.APIKey, err)
		}
	}
}

// readProviders (the parsed tree read directly) against encoding/json on the same document:
// equal whenever it answers, and it answers for the usual files.
func TestReadProvidersMatchesEncodingJSON(t *testing.T) {
	usual := []string{
		`{}`,
		`{"providers":{}}`,
		`{"providers":{"session":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`,
		`{"providers":{"local":{"baseUrl":"http://x/v1","api":"openai-completions","apiKey":"$K","authHeader":true,
			"headers":{"X-Team":"blue"},"compat":{"supportsStore":false,"openRouterRouting":{"order":["a"]}},
			"models":[{"id":"m","name":"M","api":"anthropic-messages","baseUrl":"http://y","reasoning":true,"input":["text","image"],
				"contextWindow":64000,"maxTokens":4000,"cost":{"input":1,"output":2.5,"cacheRead":0.1,"cacheWrite":1e-3},
				"headers":{"A":"b"},"compat":{"maxTokensField":"max_tokens"},"thinkingLevelMap":{"xhigh":"max","minimal":null}}],
			"modelOverrides":{"gpt-5":{"name":"Five","cost":{"output":3},"thinkingLevelMap":{}}}},
			"anthropic":{"apiKey":"!echo k"}}}`,
	}
	for _, doc := range usual {
		root := wrapDoc(t, doc)
		got, ok := readProviders(root)
		if !ok {
			t.Errorf("readProviders left a usual file to encoding/json: %s", doc)
			continue
		}
		checkProviders(t, root, got)
	}
	// Documents encoding/json reads differently or refuses, and random ones.
	odd := []string{
		`{"Providers":{"p":{"BASEURL":"u"}}}`,
		`{"providers":{"p":{"baseUrl":"a","BaseUrl":"b"}}}`,
		`{"providers":{"p":{"baseUrl":null}}}`,
		`{"providers":{"p":{"apiKey":null}}}`,
		`{"providers":{"p":{"headers":{"a":1}}}}`,
		`{"providers":{"p":{"models":{}}}}`,
		`{"providers":{"p":{"models":[{"cost":{"input":"1"}}]}}}`,
		`{"providers":{"p":{"models":[{"cost":{"input":1e999}}]}}}`,
		`{"providers":{"p":{"compat":null,"authHeader":"yes"}}}`,
		`{"providers":[]}`,
		`{"providers":{"p":{"models":[{"thinkingLevelMap":{"low":1}}]}}}`,
		`{"providers":{"p":{"headers":{"a":"\udc00"}}}}`,
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		odd = append(odd, randomModelsDoc(rng))
	}
	for _, doc := range odd {
		root := wrapDoc(t, doc)
		if got, ok := readProviders(root); ok {
			checkProviders(t, root, got)
		}
	}
}

func wrapDoc(t *testing.T, doc string) *Value {
	t.Helper()
	n, err := jsonc.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	m := merger{kind: Models}
	return m.wrap(n, nil)
}

func checkProviders(t *testing.T, root *Value, got map[string]providerEntry) {
	t.Helper()
	want, err := decodeProvidersJSON(root.JSON())
	if err != nil {
		t.Errorf("readProviders read what encoding/json refuses (%v): %s", err, root.JSON())
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readProviders differs from encoding/json on %s:\n got %#v\nwant %#v", root.JSON(), got, want)
	}
}

// randomModelsDoc is a models.json-like document: the fields providerEntry and modelEntry
// read, under other spellings too, with values of every kind.
func randomModelsDoc(rng *rand.Rand) string {
	pick := func(ss ...string) string { return ss[rng.Intn(len(ss))] }
	var value func(depth int) string
	scalar := func() string {
		return pick(`"s"`, `"é"`, `""`, `1`, `-2.5e3`, `true`, `false`, `null`, `"$X"`)
	}
	obj := func(keys []string, val func() string) string {
		var b strings.Builder
		b.WriteByte('{')
		n := rng.Intn(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", keys[rng.Intn(len(keys))], val())
		}
		b.WriteByte('}')
		return b.String()
	}
	value = func(depth int) string {
		if depth > 2 || rng.Intn(3) == 0 {
			return scalar()
		}
		if rng.Intn(2) == 0 {
			return "[" + value(depth+1) + "]"
		}
		return obj([]string{"a", "b", "order"}, func() string { return value(depth + 1) })
	}
	strs := func() string {
		if rng.Intn(6) == 0 {
			return value(1)
		}
		return obj([]string{"X-A", "x-a", "B"}, func() string { return pick(`"v"`, `"w"`, `1`) })
	}
	cost := func() string {
		if rng.Intn(6) == 0 {
			return value(1)
		}
		return obj([]string{"input", "output", "cacheRead", "CacheWrite", "other"}, func() string { return pick(`1`, `0.25`, `"2"`, `null`, `1e400`) })
	}
	model := func() string {
		keys := []string{"id", "ID", "name", "api", "baseUrl", "thinkingLevelMap", "cost", "headers", "compat", "reasoning"}
		return obj(keys, func() string {
			switch rng.Intn(5) {
			case 0:
				return cost()
			case 1:
				return strs()
			case 2:
				return obj([]string{"low", "high"}, func() string { return pick(`"l"`, `null`, `2`) })
			}
			return value(1)
		})
	}
	provider := func() string {
		keys := []string{"baseUrl", "baseURL", "apiKey", "api", "headers", "compat", "authHeader", "models", "modelOverrides", "x"}
		return obj(keys, func() string {
			switch rng.Intn(6) {
			case 0:
				return "[" + model() + "," + model() + "]"
			case 1:
				return obj([]string{"m", "M"}, model)
			case 2:
				return strs()
			case 3:
				return pick(`true`, `false`)
			}
			return value(1)
		})
	}
	return obj([]string{"providers", "providers", "Providers", "other"}, func() string {
		if rng.Intn(8) == 0 {
			return value(0)
		}
		return obj([]string{"p", "P", "q"}, provider)
	})
}
