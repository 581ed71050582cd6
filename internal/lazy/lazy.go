// Package lazy holds package-level values built on their first use at no cost before it.
//
// Every pigo process runs every linked package's init, whatever the command. sync.OnceValue
// builds on first use too, but the call itself runs at init and allocates its closure and
// state (two allocations in the init of each package that has one, D25.49). A Value written
// as a composite literal is static data: nothing runs until Get.
package lazy

import "sync"

// Value is a value built by New on the first Get. Declare it at package level as a composite
// literal whose New is a function literal that captures nothing:
//
//	var wordRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\w+`) }}
//
// Unlike sync.OnceValue, a New that panics is not called again: later Gets return the zero
// value. New's of pigo are compilations of constant patterns and decodings of embedded data,
// which their tests run.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}
