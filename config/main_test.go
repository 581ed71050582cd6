package config_test

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/cueschema/cuetest"
)

// TestMain gives the tests the pigo-cue helper, which evaluates CUE extension files.
func TestMain(m *testing.M) { cuetest.Main(m) }
