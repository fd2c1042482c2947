package faults

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// SwarmParams describes the run a [Swarm] is drawn for.
type SwarmParams struct {
	Workers   int32      // number of workers (descriptions only)
	Docs      int32      // number of workload documents (descriptions only)
	Lease     model.Time // lease duration: pauses last [Lease/2, 3*Lease] (a third just past the lease), delays [Lease/4, 2*Lease], deadlines [Lease/10, Lease]
	Horizon   model.Time // 429 bursts start in [0, Horizon)
	MaxFaults int32      // faults a run may take (plan + swarm) before the swarm stops adding any
}

// Defaults used for SwarmParams fields that are zero or negative.
const (
	DefaultLease     model.Time = 30_000 * model.Millisecond
	DefaultHorizon   model.Time = 60_000 * model.Millisecond
	DefaultMaxFaults int32      = 12
)

// withDefaults replaces unset (non-positive) fields with the defaults.
func (p SwarmParams) withDefaults() SwarmParams {
	if p.Lease <= 0 {
		p.Lease = DefaultLease
	}
	if p.Horizon <= 0 {
		p.Horizon = DefaultHorizon
	}
	if p.MaxFaults <= 0 {
		p.MaxFaults = DefaultMaxFaults
	}
	return p
}

// KindSetting is whether the swarm injects a kind, and how often: per
// boundary crossing (crash, pause), per document (transient: per document
// and attempt), per broker publish, or per commit.
type KindSetting struct {
	Enabled bool
	Rate    scheduler.PPM
}

// Burst is a window [At, At+For) in which the provider answers 429.
type Burst struct{ At, For model.Time }

// Swarm is one seed's fault mix (swarm testing): each of the pipeline's
// kinds switched on or off, with its own rate. Its fields may be set by hand for a scenario.
type Swarm struct {
	Params SwarmParams
	Kinds  [KindCount]KindSetting
	Bursts []Burst // 429 bursts, by start time; only when RateLimit is enabled
}

// rateRange is the range each kind's rate is drawn from.
var rateRange = [KindCount][2]scheduler.PPM{
	Crash:            {5_000, 80_000},
	Pause:            {5_000, 80_000},
	Duplicate:        {10_000, 100_000},
	Delay:            {10_000, 100_000},
	Reorder:          {10_000, 100_000},
	Transient:        {10_000, 100_000},
	Permanent:        {10_000, 100_000},
	Poison:           {10_000, 100_000},
	AmbiguousCommit:  {5_000, 50_000},
	DeadlinePressure: {10_000, 100_000},
	Resubmit:         {10_000, 100_000},
	ResubmitEdited:   {10_000, 100_000},
	CrashLoop:        {5_000, 50_000},
	Malformed:        {10_000, 100_000},
}

// rateStep keeps drawn rates on a 0.05% grid so they print briefly.
const rateStep = 500

// NewSwarm draws a fault mix from r: each kind is on with probability 1/2
// and gets a rate from its kind's range (drawn whether on or off, so the
// stream advances the same way for every mix). When 429 is on, one to
// three bursts of 0.5s to 5s start in [0, Horizon).
func NewSwarm(r *scheduler.Stream, p SwarmParams) *Swarm {
	s := &Swarm{Params: p.withDefaults()}
	for _, k := range Pipeline.kinds {
		on := r.Chance(scheduler.Million / 2)
		lo, hi := rateRange[k][0], rateRange[k][1]
		rate := lo + rateStep*scheduler.PPM(r.Uint64N(uint64((hi-lo)/rateStep)+1))
		s.Kinds[k] = KindSetting{Enabled: on, Rate: rate}
	}
	if s.Kinds[RateLimit].Enabled {
		s.Bursts = drawBursts(r, s.Params.Horizon)
	}
	return s
}

func drawBursts(r *scheduler.Stream, horizon model.Time) []Burst {
	bursts := make([]Burst, 1+r.IntN(3))
	for i := range bursts {
		bursts[i].At = model.Millisecond * r.Int64N(max(horizon/model.Millisecond, 1))
		bursts[i].For = between(r, 500*model.Millisecond, 5000*model.Millisecond)
	}
	slices.SortStableFunc(bursts, func(a, b Burst) int { return cmp.Compare(a.At, b.At) })
	return bursts
}

// between draws a duration in [lo, hi] on a whole-millisecond grid (so
// realized plans read well), at least 1ms so the fault it goes into is
// valid.
func between(r *scheduler.Stream, lo, hi model.Time) model.Time {
	const ms = model.Millisecond
	lo = max((lo+ms-1)/ms, 1)
	hi = max(hi/ms, lo)
	return ms * model.Time(r.Between(scheduler.Time(lo), scheduler.Time(hi)))
}

// Boost switches kind k on at rate at least rate: a seed biased toward
// a rare conjunction that needs k often.
func (s *Swarm) Boost(k Kind, rate scheduler.PPM) {
	s.Kinds[k] = KindSetting{Enabled: true, Rate: max(s.Kinds[k].Rate, rate)}
}

// Enabled reports whether the swarm injects faults of kind k.
func (s *Swarm) Enabled(k Kind) bool { return k < KindCount && s.Kinds[k].Enabled }

// String prints the mix on one line, kinds in their fixed order, e.g.
// "swarm crash=2.5% pause=off ... 429=3s+1.5s,20s+800ms ...".
func (s *Swarm) String() string {
	b := []byte("swarm")
	for _, k := range Pipeline.kinds {
		b = append(b, ' ')
		b = append(b, k.String()...)
		b = append(b, '=')
		switch {
		case !s.Kinds[k].Enabled:
			b = append(b, "off"...)
		case k == RateLimit:
			b = s.appendBursts(b)
		default:
			b = appendPercent(b, s.Kinds[k].Rate)
		}
	}
	return string(b)
}

// appendBursts prints bursts as start+length, comma separated.
func (s *Swarm) appendBursts(b []byte) []byte {
	if len(s.Bursts) == 0 {
		return append(b, "none"...)
	}
	for i, u := range s.Bursts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, duration(u.At)...)
		b = append(b, '+')
		b = append(b, duration(u.For)...)
	}
	return b
}

// appendPercent prints a PPM as an exact percentage without trailing zeros.
func appendPercent(b []byte, p scheduler.PPM) []byte {
	b = strconv.AppendUint(b, uint64(p/10_000), 10)
	if frac := p % 10_000; frac != 0 {
		digits := []byte{'.', byte('0' + frac/1000), byte('0' + frac/100%10), byte('0' + frac/10%10), byte('0' + frac%10)}
		for digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		b = append(b, digits...)
	}
	return append(b, '%')
}
