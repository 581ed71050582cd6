// Package openai holds pigo's clients for OpenAI's two wire APIs, as fantasy's providers/openai
// keeps them together: Chat Completions (openai-completions, used by most OpenAI-compatible
// providers) and Responses (openai-responses), with their shared compat detection, headers and
// error texts. Each registers itself with llm.Register under its models.json api value.
package openai
