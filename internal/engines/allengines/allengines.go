// Package allengines is the table of pigo-engines' servers: the helper's main and the test binaries
// that stand in for the helper link it; pigo does not.
package allengines

import (
	"github.com/pigo-agent/pigo/internal/codemode/jsvm"
	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/talk/sqlstore"
	"github.com/pigo-agent/pigo/internal/web/extract"
)

// Servers are the helper's engines by name.
var Servers = map[string]engines.Server{
	"extract": extract.Serve,
	"js":      jsvm.Serve,
	"store":   sqlstore.Serve,
}
