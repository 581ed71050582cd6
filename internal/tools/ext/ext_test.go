package ext

import (
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/toolrun"
)

func TestExpandArgv(t *testing.T) {
	args, _ := toolrun.ParseValue([]byte(`{"s":"a b; $(rm -rf /)","n":5,"f":1.5,"b":false,"list":["x","y z"],"obj":{"k":1},"nul":null}`))
	cases := []struct {
		tmpl []string
		want string // words joined by |
	}{
		{[]string{"git", "log", "-n", "{{n}}"}, "git|log|-n|5"},
		{[]string{"echo", "{{s}}"}, "echo|a b; $(rm -rf /)"},
		{[]string{"echo", "{{ list }}"}, "echo|x|y z"},
		{[]string{"echo", "--n={{n}}", "--f={{f}}", "{{b}}"}, "echo|--n=5|--f=1.5|false"},
		{[]string{"echo", "{{missing}}", "--m={{missing}}", "{{nul}}", "end"}, "echo|end"},
		{[]string{"echo", "{{obj}}", "x{{list}}"}, `echo|{"k":1}|x["x","y z"]`},
		{[]string{"echo", "{{n}}{{s}}"}, "echo|5a b; $(rm -rf /)"},
	}
	for _, c := range cases {
		got, err := ExpandArgv(c.tmpl, args)
		if err != nil || strings.Join(got, "|") != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.tmpl, got, err, c.want)
		}
	}
	if _, err := ExpandArgv([]string{"{{missing}}", "x"}, args); err == nil {
		t.Error("an empty program was accepted")
	}
	if _, err := ExpandArgv(nil, args); err == nil {
		t.Error("an empty template was accepted")
	}
}
