package app

import (
	"errors"
	"fmt"
)

// Error is an Open or command failure the command line turns into an exit code: a usage
// problem (exit 2) or a failure (exit 1). Any other error is an I/O or internal failure.
type Error struct {
	Usage bool
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

func usagef(format string, a ...any) error {
	return &Error{Usage: true, Msg: fmt.Sprintf(format, a...)}
}

func failf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// ErrBusy is returned when a prompt or a command is started while another one runs.
var ErrBusy = errors.New("the agent is working: wait for it to finish (or abort it)")

// ErrNoModel is the usage error of a run without a model.
var ErrNoModel = &Error{Usage: true, Msg: "no model: give --model PROVIDER/ID or set defaultProvider and defaultModel in settings.json"}

// ErrUnknownModel marks Config.Model's error for a model neither models.json nor the
// catalogue knows (its text is the command line's, with a did-you-mean).
var ErrUnknownModel = errors.New("unknown model")

// errNoConfig is the error of an operation that needs the configuration when the session was
// opened without one.
var errNoConfig = errors.New("the configuration is not available in this session")
