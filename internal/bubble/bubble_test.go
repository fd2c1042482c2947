package bubble_test

import (
	"testing"
	"time"

	"github.com/durasim/durasim/internal/bubble"
)

// A bubble's clock reads the time asked for, whatever the real clock
// says, and two bubbles at once keep their own.
func TestAt(t *testing.T) {
	r := bubble.New(t)
	at := time.Date(2026, 3, 8, 6, 59, 59, 500_000_000, time.UTC)
	var got, later time.Time
	if err := r.At(at, func() {
		got = time.Now().UTC()
		time.Sleep(time.Second)
		later = time.Now().UTC()
	}); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(at) || later.Sub(got) != time.Second {
		t.Fatalf("bubble clock read %s then %s; want %s then a second later", got, later, at)
	}
	if err := r.At(time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), func() {}); err != bubble.ErrBeforeEpoch {
		t.Fatalf("a time before the epoch: err %v, want ErrBeforeEpoch", err)
	}
}

// The process's runner works in a test binary too, from goroutines at
// once.
func TestProcess(t *testing.T) {
	r, err := bubble.Process()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan time.Time)
	for i := range 4 {
		go func() {
			var got time.Time
			_ = r.At(time.Date(2030, 1, 1, 0, 0, i, 0, time.UTC), func() { got = time.Now().UTC() })
			done <- got
		}()
	}
	seen := map[int]bool{}
	for range 4 {
		seen[(<-done).Second()] = true
	}
	if len(seen) != 4 {
		t.Fatalf("four bubbles at once read %v; want seconds 0 to 3", seen)
	}
}
