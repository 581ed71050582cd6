//go:build !linux

package lsp

import "errors"

// watchTree is Linux-only (inotify); elsewhere the servers learn of changes from the tools
// alone, as with watch.enabled false.
func watchTree(string, func(string) bool, func(string, int)) (func(), error) {
	return nil, errors.New("lsp watch: not supported on this system")
}
