package riverchaos

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// What River's in-process mode (package riverinproc) shares with this
// one: the checks' feed, the inserts' options, the jobs read back and
// leader election switched off by name. One seam: the same data, not a
// copy.

// Feed is what a River run's histories give the checks (feed).
func Feed(d targetsim.Design) invariants.TargetFeed { return feed(d) }

// InsertOpts is the inserts' options: unique by args, maxAttempts.
func InsertOpts(maxAttempts int) *river.InsertOpts { return insertOpts(maxAttempts) }

// JobOf is River's row as the seam's job, times relative to base.
func JobOf(r *rivertype.JobRow, base time.Time) (target.Job, error) { return jobOf(r, base) }

// DisableLeaderElection sets River's LeaderElectionDisabled where the
// release has it, and reports whether it did.
func DisableLeaderElection(rc *river.Config) bool { return disableLeaderElection(rc) }
