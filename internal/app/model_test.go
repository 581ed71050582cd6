package app

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

func TestClampThinking(t *testing.T) {
	high := "high"
	for _, c := range []struct {
		m     llm.Model
		level string
		want  string
	}{
		{llm.Model{}, "high", "off"},
		{llm.Model{Reasoning: true}, "high", "high"},
		{llm.Model{Reasoning: true}, "xhigh", "high"},
		{llm.Model{Reasoning: true, ThinkingLevelMap: map[string]*string{"xhigh": &high}}, "xhigh", "xhigh"},
		{llm.Model{Reasoning: true, ThinkingLevelMap: map[string]*string{"minimal": nil}}, "minimal", "low"},
		{llm.Model{Reasoning: true}, "bogus", "off"},
	} {
		if got := ClampThinking(&c.m, c.level); got != c.want {
			t.Errorf("ClampThinking(%+v, %q) = %q, want %q", c.m, c.level, got, c.want)
		}
	}
}
