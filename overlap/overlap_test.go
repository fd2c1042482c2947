package overlap

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/durasim/durasim/target"
)

// A waiter is still when every chain of waits ends at a transaction idle
// between its actor's calls; one behind a running backend, or in a cycle
// PostgreSQL has yet to break, is not.
func TestStill(t *testing.T) {
	g := graph{
		state: map[uint32]string{1: "idle in transaction", 2: "active", 3: "active", 4: "active", 5: "active", 6: "active", 7: "active"},
		blockers: map[uint32][]uint32{
			2: {1}, // waits on an idle transaction
			3: {2}, // behind 2 in the row's queue
			4: {5}, // waits on 5, which runs
			6: {7}, // a cycle
			7: {6},
		},
	}
	for pid, want := range map[uint32]bool{2: true, 3: true, 4: false, 5: false, 6: false} {
		if got := g.still(pid, nil); got != want {
			t.Errorf("still(%d) = %v, want %v", pid, got, want)
		}
	}
}

// A deadlock and a serialization failure are race outcomes; any other
// error is as it was.
func TestClassify(t *testing.T) {
	for code, want := range map[string]string{"40P01": "deadlock", "40001": "serialization", "23505": ""} {
		if got := target.RaceCode(Classify(&pgconn.PgError{Code: code})); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
	if err := errors.New("x"); Classify(err) != err || Classify(nil) != nil {
		t.Error("Classify changed an error that is no race")
	}
}
