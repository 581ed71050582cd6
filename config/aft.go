package config

import (
	"os/exec"

	"github.com/pigo-agent/pigo/internal/aft"
)

// AFTSetup is what the seed's aft extension finds at session start: the binary (its
// discovery order) and the user-level aft.jsonc.
type AFTSetup struct {
	Binary aft.Binary
	// Found is true when a binary was found; Tried lists the places looked at.
	Found bool
	Tried []string
	// Config is the user-level aft.jsonc (defaults when there is none).
	Config aft.Config
}

// Available reports whether the aft tools are registered: a binary and aft.jsonc not turning
// AFT off.
func (s *AFTSetup) Available() bool { return s.Found && s.Config.Enabled }

// AFT returns the session's AFT setup, looked for once per Config (by Load, on another
// goroutine, when Options.Resolving: AFT waits for a search under way there, and runs one
// that has not begun itself).
func (c *Config) AFT() *AFTSetup {
	if c.aft != nil {
		return c.aft
	}
	if c.aftDone != nil && !c.aftClaimed.CompareAndSwap(false, true) {
		<-c.aftDone
		c.aft = c.aftFound
		return c.aft
	}
	c.aft = findAFT(c.aftEnv())
	return c.aft
}

func (c *Config) aftEnv() aft.Env {
	return aft.Env{Home: c.Home, AgentDir: c.AgentDir, Getenv: c.Opts.getenv, LookPath: exec.LookPath}
}

func findAFT(env aft.Env) *AFTSetup {
	s := &AFTSetup{Config: aft.LoadConfig(env)}
	s.Binary, s.Tried, s.Found = aft.Find(env)
	return s
}
