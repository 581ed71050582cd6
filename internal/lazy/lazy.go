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
// As with sync.OnceValue, a New that panics panics on every Get with the same value (a
// value built wrong is never handed out as the zero value).
type Value[T any] struct {
	New   func() T
	once  sync.Once
	v     T
	built bool
	p     any
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() {
		defer func() {
			if !l.built {
				l.p = recover()
				panic(l.p)
			}
		}()
		l.v = l.New()
		l.built = true
	})
	if !l.built {
		panic(l.p)
	}
	return l.v
}
