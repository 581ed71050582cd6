package jsonedit

import (
	"fmt"
	"strings"
	"testing"
)

// benchFile builds a commented settings-like file of about 5 KB.
func benchFile() []byte {
	var b strings.Builder
	b.WriteString("{\n  // generated for benchmarks\n  \"defaultModel\": \"claude-sonnet-4\",\n  \"servers\": {\n")
	for i := 0; b.Len() < 4800; i++ {
		fmt.Fprintf(&b, "    // server %d\n    \"srv%d\": {\n      \"command\": \"bin%d\", /* path */\n      \"args\": [\"--stdio\", \"-v\"],\n      \"enabled\": true\n    },\n", i, i, i)
	}
	b.WriteString("    \"last\": {}\n  }\n}\n")
	return []byte(b.String())
}

func BenchmarkSet(b *testing.B) {
	src := benchFile()
	cases := []struct {
		name string
		path Path
		val  string
	}{
		{"replace-scalar", Path{Key("servers"), Key("srv20"), Key("enabled")}, "false"},
		{"new-key", Path{Key("servers"), Key("srv3"), Key("env")}, `{"A": "1"}`},
		{"create-nested", Path{Key("talk"), Key("voice"), Key("name")}, `"alloy"`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Set(src, c.path, []byte(c.val)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkUnset(b *testing.B) {
	src := benchFile()
	p := Path{Key("servers"), Key("srv10")}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unset(src, p); err != nil {
			b.Fatal(err)
		}
	}
}
