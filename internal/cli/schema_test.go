package cli

import (
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/schema/jsonschema"
)

// TestSchemaKindsAsJoined: the --jsonschema flag's help names the kinds written out (so that
// the command table is static data, D25.49); they must be jsonschema.Kinds.
func TestSchemaKindsAsJoined(t *testing.T) {
	if want := strings.Join(jsonschema.Kinds, ", "); schemaKinds != want {
		t.Errorf("schemaKinds = %q, want %q", schemaKinds, want)
	}
}
