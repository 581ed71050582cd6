package web

import (
	"maps"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/engines/allengines"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
	"github.com/pigo-agent/pigo/internal/web/extract"
)

// TestMain: the tests that reach web_fetch's extractor, codemode's VM or talk's store run the
// real pigo-engines helper, which is this test binary (enginestest); with two more engines,
// the extractor under small limits, that TestExtractLimits reaches with a 5 MiB page.
func TestMain(m *testing.M) {
	servers := maps.Clone(allengines.Servers)
	servers["extract-cpu"] = extract.Limited(time.Second, 0)
	servers["extract-mem"] = extract.Limited(0, 64<<20)
	enginestest.Main(m, servers)
}
