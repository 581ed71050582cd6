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
