package mirror

import (
	"fmt"
	"slices"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// probePath is the path an event's operation takes in the store, as far
// as the model tells it: its kind, outcome and code. Paths run different
// statements, so each is probed on its own.
type probePath struct {
	kind model.EventKind
	ok   bool
	code model.Code
}

// probesPerPath bounds the failure probes per path and seed: the first
// occurrences of a path already fail each of its statements, and a seed
// stays about a third slower than without probes, not several times.
const probesPerPath = 2

// probe runs e's operation beforehand on fresh connections, each time
// with one of its statements failing (sqlstore.Conn.FailAt: a
// serialization failure, a statement timeout), first to last: each run
// must fail without committing. A store that drops a statement's error
// and commits the rest writes what the model never did. The run's
// outcome is not compared (it fails); the store's own flag says whether
// it committed. A probe that reaches no statement ends the loop, and an
// armed failure never lets its operation commit, so probes change
// nothing.
//
// SQLite only: in PostgreSQL a rolled-back insert still consumes its
// identity value (broker message ids, say), so a probe would move the ids
// the model's are compared with. And for an event of several operations,
// only those preceded by reads are probed (a relay's claim, then its
// publish); after a write (a redrive, then its audit row) a probe would
// commit the write for real.
func (b *Backend) probe(e *model.Event) error {
	if b.name != sqlstore.SQLite {
		return nil
	}
	path := probePath{kind: e.Kind, ok: e.OK, code: e.Code}
	if b.probed[path] >= probesPerPath {
		return nil
	}
	b.probed[path]++
	ops := 1
	if e.Kind == model.EvPublish {
		ops = 2
	}
	// The replay below runs for its statements only: keep what it would
	// note in the backend's bookkeeping.
	read, commits, delivers, fails := b.read, b.commitStatements, b.deliverStatements, slices.Clone(b.fails)
	defer func() {
		b.read, b.commitStatements, b.deliverStatements = read, commits, delivers
		copy(b.fails, fails)
	}()
	for op := range ops {
		for k := 0; ; k++ {
			c, err := b.open()
			if err != nil {
				return err
			}
			c.FailAt(op, k)
			_ = b.replay(c, e)
			fired, committed := c.Failed()
			ran := c.Statements()
			_ = c.Close()
			if !fired && op == 0 && ran > k {
				// The operation ran its statement k+1, yet it did not fail as
				// armed: the probe is broken, and what it proves, void. (An
				// event's first operation, when not failed, is all that ran:
				// its error ends the replay.)
				return b.differ(e, fmt.Sprintf("its statement %d ran although armed to fail (%d statements ran)", k+1, ran),
					fmt.Sprintf("statement %d failing", k+1))
			}
			if committed {
				return b.differ(e, fmt.Sprintf("its operation %d committed although its statement %d failed", op+1, k+1),
					"the failed statement's error, and nothing written")
			}
			if !fired {
				break
			}
		}
	}
	return nil
}
