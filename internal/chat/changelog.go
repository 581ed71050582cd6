package chat

import (
	_ "embed"
	"strings"
)

//go:embed changelog.md
var changelogText string

// changelog is /changelog: pigo's changes, newest first.
func changelog() string { return strings.TrimSpace(changelogText) }
