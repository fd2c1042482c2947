package sim

import (
	"fmt"
	"time"

	"github.com/durasim/durasim/model"
)

// Upper bounds on a run, checked by [Config.Validate] before anything is
// allocated, so that a mistyped size is a one-line error instead of a run
// that eats the machine's memory. Measured on the standard workload: a
// virtual worker costs about 300 bytes; a document about 1.3 KB with its
// events (a million documents peak at about 1.3 GB resident).
const (
	MaxWorkers = 100_000
	MaxDocs    = 1_000_000
	// MaxTenants is how many tenant ids the workload has (the last at
	// the edges of seed 000's tenant pattern): Tenants is 1 to it.
	MaxTenants = len(tenantNames)
	// MinHeartbeat: a busy worker heartbeats every HeartbeatEvery of its
	// step, so a nanosecond interval is billions of events per step.
	MinHeartbeat = model.Millisecond
	// MaxLease: a job held by a crashed or paused worker comes back only
	// when its lease expires; the drain (DrainLimit, 2 h by default) must
	// be able to see that.
	MaxLease = 60 * 60_000 * model.Millisecond
	// MaxArrivalSpan bounds Docs × ArrivalGap, the time over which
	// documents arrive: the queue depth is sampled every 100 ms of it
	// (30 days: 26 million samples, about 100 MB).
	MaxArrivalSpan = 30 * 24 * 60 * 60_000 * model.Millisecond
	// MaxDrainLimit bounds the drain, sampled every 100 ms as well.
	MaxDrainLimit = 24 * 60 * 60_000 * model.Millisecond
	// MaxFaultTime bounds a plan's times (a 429 burst's at, any for and
	// within), which the run adds to the virtual clock.
	MaxFaultTime = 30 * 24 * 60 * 60_000 * model.Millisecond
)

// limitErrors reports every bound above that c exceeds.
func (c Config) limitErrors() []error {
	var errs []error
	if c.Workers > MaxWorkers {
		errs = append(errs, fmt.Errorf("workers must be at most %d (got %d)", MaxWorkers, c.Workers))
	}
	if c.Docs > MaxDocs {
		errs = append(errs, fmt.Errorf("docs must be at most %d (got %d)", MaxDocs, c.Docs))
	}
	if hb := c.Model.HeartbeatEvery; hb > 0 && hb < MinHeartbeat {
		errs = append(errs, fmt.Errorf("heartbeat interval must be at least %s (got %s)", time.Duration(MinHeartbeat), time.Duration(hb)))
	}
	if c.Model.Lease > MaxLease {
		errs = append(errs, fmt.Errorf("lease must be at most %s (got %s)", time.Duration(MaxLease), time.Duration(c.Model.Lease)))
	}
	// Divided, not multiplied: Docs × ArrivalGap can overflow.
	if c.Docs > 0 && c.ArrivalGap > MaxArrivalSpan/model.Time(c.Docs) {
		errs = append(errs, fmt.Errorf("docs × arrival gap must be at most %s (got %d × %s)", time.Duration(MaxArrivalSpan), c.Docs, time.Duration(c.ArrivalGap)))
	}
	if c.DrainLimit > MaxDrainLimit {
		errs = append(errs, fmt.Errorf("drain limit must be at most %s (got %s)", time.Duration(MaxDrainLimit), time.Duration(c.DrainLimit)))
	}
	for _, f := range c.Plan.Faults {
		if f.At > MaxFaultTime || f.For > MaxFaultTime {
			errs = append(errs, fmt.Errorf("plan: %v: times must be at most %s", f, time.Duration(MaxFaultTime)))
			break
		}
	}
	return errs
}
