// Package providers links every wire client into the binary: importing it registers
// every API of pi's catalogue with llm.ProviderFor.
package providers

import (
	// Each package registers its API in init.
	_ "github.com/pigo-agent/pigo/internal/llm/anthropic"
	_ "github.com/pigo-agent/pigo/internal/llm/bedrock"
	_ "github.com/pigo-agent/pigo/internal/llm/google"
	_ "github.com/pigo-agent/pigo/internal/llm/mistral"
	_ "github.com/pigo-agent/pigo/internal/llm/openai"
)
