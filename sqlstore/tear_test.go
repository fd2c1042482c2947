package sqlstore

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A tear between any two statements of Commit (result, outbox row) and of
// Deliver (broker, ledger, effect) leaves the tables as they were: each is
// one transaction. The statements are counted on a twin store that runs
// the same operations whole.
func TestTornOperationsLeaveNothing(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		l := lease(t, c, "w0", 0, 100)
		tears := func(what string, compound bool, op func(c *Conn) error) {
			t.Helper()
			before := state(t, s)
			n := 0
			for k := 0; ; k++ {
				tc := conn(t, s)
				tc.CountStatements()
				tc.TearAfter(k)
				err := op(tc)
				if !tc.Torn() {
					if err != nil {
						t.Fatalf("%s whole: %v", what, err)
					}
					n = tc.Statements()
					break // it ran whole: k is past its last statement
				}
				if err == nil {
					t.Fatalf("%s torn after %d statements: no error", what, k)
				}
				if d := cmp.Diff(before, state(t, s)); d != "" {
					t.Fatalf("%s torn after %d statements left (-before +after):\n%s", what, k, d)
				}
			}
			if compound && n < 2 {
				t.Fatalf("%s ran %d statements; want a compound operation", what, n)
			}
		}
		var ev Committed // (PostgreSQL's identities are not rolled back: torn commits use up ids)
		tears("commit", true, func(c *Conn) error {
			var err error
			ev, err = c.Commit(ctx, commitReq(id, l.Fence, "k", 0))
			return err
		})
		var msg int64
		tears("publish", false, func(c *Conn) error {
			var err error
			msg, err = c.Publish(ctx, ev.EventID, 6)
			return err
		})
		tears("deliver", true, func(c *Conn) error {
			_, _, err := c.Deliver(ctx, msg, 7)
			return err
		})
	})
}

// A statement that fails inside Commit, Publish or Deliver (FailAt: as a
// serialization failure would) fails the operation and leaves the tables
// as they were; an operation armed past its last statement rolls back
// (ErrFailureUnreached), so a probe never writes.
func TestFailedStatementsLeaveNothing(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		l := lease(t, c, "w0", 0, 100)
		fails := func(what string, op func(c *Conn) error) {
			t.Helper()
			before := state(t, s)
			for k := 0; ; k++ {
				fc := conn(t, s)
				fc.FailAt(0, k)
				err := op(fc)
				fired, committed := fc.Failed()
				if committed {
					t.Fatalf("%s: committed although its statement %d failed", what, k+1)
				}
				if err == nil {
					t.Fatalf("%s with statement %d failing: no error", what, k+1)
				}
				if d := cmp.Diff(before, state(t, s)); d != "" {
					t.Fatalf("%s with statement %d failing left (-before +after):\n%s", what, k+1, d)
				}
				if !fired {
					if !errors.Is(err, ErrFailureUnreached) {
						t.Fatalf("%s armed past its %d statements: %v, want ErrFailureUnreached", what, k, err)
					}
					if k < 1 {
						t.Fatalf("%s ran no statement", what)
					}
					return
				}
			}
		}
		var ev Committed
		fails("commit", func(c *Conn) error {
			_, err := c.Commit(ctx, commitReq(id, l.Fence, "k", 0))
			return err
		})
		ev, err := c.Commit(ctx, commitReq(id, l.Fence, "k", 0))
		if err != nil {
			t.Fatal(err)
		}
		fails("publish", func(c *Conn) error {
			_, err := c.Publish(ctx, ev.EventID, 6)
			return err
		})
		msg, err := c.Publish(ctx, ev.EventID, 6)
		if err != nil {
			t.Fatal(err)
		}
		fails("deliver", func(c *Conn) error {
			_, _, err := c.Deliver(ctx, msg, 7)
			return err
		})
	})
}
