package mcp

import (
	"encoding/json"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
)

// InputSchema is pi's normalizeMcpInputSchema: the tool's input schema as an object schema
// (servers may omit "type", and some providers reject object schemas without "properties"),
// every other keyword kept in its place, serialised as JSON.stringify does.
func InputSchema(raw json.RawMessage) json.RawMessage {
	v, err := toolrun.ParseValue(raw)
	if err != nil || v.Kind != toolrun.Object {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if t := v.Get("type"); t == nil || t.Kind == toolrun.Null {
		v.Set("type", &toolrun.Value{Kind: toolrun.String, Str: "object"})
	}
	if v.Get("properties") == nil {
		v.Set("properties", &toolrun.Value{Kind: toolrun.Object})
	}
	b, _ := v.MarshalJSON()
	return b
}

// contentBlockSchema is the compact schema of an MCP content block in every MCP tool's output
// schema (pi's CONTENT_BLOCK_SCHEMA).
const contentBlockSchema = `{"type":"object","properties":{"type":{"enum":["text","image","audio","resource_link","resource"]},"text":{"type":"string"},"data":{"type":"string"},"mimeType":{"type":"string"}},"required":["type"],"additionalProperties":true}`

// ResultSchema is pi's createMcpResultSchema: every MCP tool's output schema is the
// CallToolResult codemode scripts receive (content, structuredContent, isError), with the
// tool's own output schema as structuredContent (its local $refs relocated below it).
func ResultSchema(output json.RawMessage) json.RawMessage {
	structured := "{}"
	if len(output) > 0 {
		if v, err := toolrun.ParseValue(output); err == nil && v.Kind != toolrun.Null {
			b, _ := relocate(v, "#/properties/structuredContent").MarshalJSON()
			structured = string(b)
		}
	}
	return json.RawMessage(`{"type":"object","properties":{"content":{"type":"array","items":` + contentBlockSchema +
		`},"structuredContent":` + structured + `,"isError":{"type":"boolean"}},"required":["content"],"additionalProperties":true}`)
}

var schemaDataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

var schemaMapKeywords = map[string]bool{"properties": true, "patternProperties": true, "dependentSchemas": true,
	"dependencies": true, "$defs": true, "definitions": true}

// relocate is pi's relocateSchema: local references ("#", "#/$defs/X") are rewritten to point
// below pointer.
func relocate(v *toolrun.Value, pointer string) *toolrun.Value {
	switch v.Kind {
	case toolrun.Array:
		out := &toolrun.Value{Kind: toolrun.Array}
		for _, e := range v.Arr {
			out.Arr = append(out.Arr, relocate(e, pointer))
		}
		return out
	case toolrun.Object:
	default:
		return v
	}
	out := &toolrun.Value{Kind: toolrun.Object}
	for _, m := range v.Obj {
		x := m.Value
		switch {
		case m.Key == "$ref" && x.Kind == toolrun.String && (x.Str == "#" || strings.HasPrefix(x.Str, "#/")):
			x = &toolrun.Value{Kind: toolrun.String, Str: pointer + x.Str[1:]}
		case schemaDataKeywords[m.Key]:
		case schemaMapKeywords[m.Key] && x.Kind == toolrun.Object:
			y := &toolrun.Value{Kind: toolrun.Object}
			for _, p := range x.Obj {
				y.Obj = append(y.Obj, toolrun.Member{Key: p.Key, Value: relocate(p.Value, pointer)})
			}
			x = y
		default:
			x = relocate(x, pointer)
		}
		out.Obj = append(out.Obj, toolrun.Member{Key: m.Key, Value: x})
	}
	return out
}
