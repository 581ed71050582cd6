package lazy

import (
	"sync"
	"testing"
)

var calls int

var counted = Value[int]{New: func() int { calls++; return 42 }}

// TestGetBuildsOnce: New runs on the first Get only, also when Gets race.
func TestGetBuildsOnce(t *testing.T) {
	if calls != 0 {
		t.Fatalf("New ran %d times before any Get", calls)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := counted.Get(); v != 42 {
				t.Errorf("Get = %d", v)
			}
		}()
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("New ran %d times, want 1", calls)
	}
}

var failing = Value[int]{New: func() int { panic("bad table") }}

// TestPanicEveryGet: a New that panics makes every Get panic with its value, as
// sync.OnceValue does, and is not called again.
func TestPanicEveryGet(t *testing.T) {
	for i := range 3 {
		func() {
			defer func() {
				if r := recover(); r != "bad table" {
					t.Errorf("Get %d: recovered %v, want the panic of New", i, r)
				}
			}()
			v := failing.Get()
			t.Errorf("Get %d returned %d", i, v)
		}()
	}
}
