package lsp

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
)

//go:embed languages.json
var languagesJSON []byte

// builtinLanguages is the fallback extension → languageId table; it lives
// in languages.json so it can be extended without touching code. It is decoded
// on first use: package initialisation is paid by every pigo process.
var builtinLanguages = sync.OnceValue(func() (t struct {
	Extensions map[string]string `json:"extensions"`
	FileNames  map[string]string `json:"fileNames"`
}) {
	if err := json.Unmarshal(languagesJSON, &t); err != nil {
		panic("lsp: embedded languages.json: " + err.Error()) // a build defect, caught by every test
	}
	return t
})

// PlainText is the languageId used when neither the server's map nor the
// built-in table knows the file.
const PlainText = "plaintext"

// LanguageID returns the LSP languageId of file: the server's
// languageIdByExtension first (exact extension, then lower-cased), then the
// built-in table by file name and by extension, else "plaintext".
func LanguageID(file string, byExt map[string]string) string {
	ext := filepath.Ext(file)
	lower := strings.ToLower(ext)
	if ext != "" {
		if id, ok := byExt[ext]; ok {
			return id
		}
		if id, ok := byExt[lower]; ok {
			return id
		}
	}
	if id, ok := builtinLanguages().FileNames[filepath.Base(file)]; ok {
		return id
	}
	if id, ok := builtinLanguages().Extensions[lower]; ok && ext != "" {
		return id
	}
	return PlainText
}
