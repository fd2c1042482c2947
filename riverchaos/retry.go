package riverchaos

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// cappedRetry is River's default retry policy (attempt⁴ seconds ±10% by
// the number of errors) capped at max: a job rescued four times would
// otherwise wait more than four minutes, past any drain. The partial
// checks do not check retry timing, so the cap changes how long a run
// takes, not what it checks.
type cappedRetry struct {
	max time.Duration
	def river.DefaultClientRetryPolicy
}

func (p *cappedRetry) NextRetry(job *rivertype.JobRow) time.Time {
	next := p.def.NextRetry(job)
	if limit := time.Now().Add(p.max); next.After(limit) {
		return limit
	}
	return next
}
