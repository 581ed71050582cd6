package config_test

import (
	"testing"
)

// BenchmarkCheckExamples measures what `pigo check` does on the examples: discover and read
// every file, add the embedded declarations, validate, run the semantic and cross-file checks
// and resolve the registry for the default model. The compiled schema is cached per process,
// as in a real run after the first file.
func BenchmarkCheckExamples(b *testing.B) {
	loadExamples(b).Check() // compile the schema once, outside the timing
	b.ReportAllocs()
	for b.Loop() {
		cfg := loadExamples(b)
		if errs, warns, _ := cfg.Check().Count(); errs+warns > 0 {
			b.Fatalf("examples: %d errors, %d warnings", errs, warns)
		}
	}
}
