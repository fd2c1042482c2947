package goqiterepro

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"maragu.dev/goqite"
)

// goqite compares a message's timeout, written from the receiving
// process's clock (time.Now in Go), with the next receiver's own clock:
// a receiver whose clock runs ahead of the holder's by more than the
// timeout takes the message the holder still holds, at once, with no
// time passing at all. Each process is a synctest bubble here, so each
// has a clock of its own, both starting at 2000-01-01 00:00 UTC: the
// holder receives at its 00:00:00 (timeout five seconds), the other's
// clock is 8.6 s ahead. (durasim: the goqite side-by-side report's clock
// finding, `clock-ahead worker=w0 at=2.4s for=8.599s`, target-consistency:
// a message received again while its holder's timeout still ran.)
func TestClockAheadTakesAHeldMessage(t *testing.T) {
	// The queue is made outside both bubbles: the two processes share it.
	q := goqite.New(goqite.NewOpts{DB: newDB(t), Name: "jobs", MaxReceive: 3})
	var held *goqite.Message
	synctest.Test(t, func(t *testing.T) { // the holder's process
		if err := q.Send(context.Background(), goqite.Message{Body: []byte("doc")}); err != nil {
			t.Fatal(err)
		}
		held = receive(t, q)
		if again := receive(t, q); again != nil {
			t.Fatalf("the holder's own clock: received %s again within its timeout", again.ID)
		}
	})
	synctest.Test(t, func(t *testing.T) { // a process whose clock is 8.6 s ahead
		time.Sleep(8600 * time.Millisecond)
		taken := receive(t, q)
		if held == nil || taken == nil || taken.ID != held.ID {
			t.Fatalf("receives: %v, then %v; goqite v0.4.0 hands the held message to the process ahead", held, taken)
		}
	})
}
