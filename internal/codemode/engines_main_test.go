package codemode

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/engines/allengines"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
)

// TestMain: the tests that reach web_fetch's extractor, codemode's VM or talk's store run the
// real pigo-engines helper, which is this test binary (enginestest). Codemode's full-output
// files stay in the temp directory: the run has its own (enginestest.MainOwnTemp).
func TestMain(m *testing.M) { enginestest.MainOwnTemp(m, allengines.Servers) }
