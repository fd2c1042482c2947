package sim

import (
	"strings"

	"github.com/durasim/durasim/model"
)

// DocMetrics keeps seed 000's three numbers apart for one document: time
// waiting in the queue, inference time, and the wait until its review
// entry reaches the operator.
type DocMetrics struct {
	Job         model.JobID
	Tenant      string
	Document    string
	QueueWait   model.Time // enqueue → first lease
	Inference   model.Time // sum of extraction latencies over attempts
	ReviewWait  model.Time // review committed → review entry applied
	Attempts    int32
	Extractions int32
	Effects     int32
}

// Metrics are a run's synthetic figures.
type Metrics struct {
	Docs        []DocMetrics // one per job, in job order
	QueueDepth  []int32      // live jobs sampled every Tick
	Tick        model.Time
	Leases      int64
	Extractions int64 // extraction calls (stage extract), all attempts
	Effects     int64 // effects applied by the consumer
	Commits     int64
	Dedupes     int64 // commits deduped + deliveries skipped as duplicates
	Retries     int64
	Dead        int64
	Cancelled   int64
	Succeeded   int64
	Crashes     int64
	Pauses      int64
	Tokens      int64 // tokens spent by extraction attempts
	RateLimited int64 // provider 429 answers
	StaleFences int64 // fenced calls rejected

	// Per second of virtual time (index = second): provider calls and
	// the 429s among them — the retry storm's shape.
	CallsPerSecond   []int32
	LimitedPerSecond []int32
	// Breaker lists the circuit breaker's state changes in order.
	Breaker []BreakerChange
	// Drained is when the run drained (0 if it did not).
	Drained model.Time
}

// BreakerChange is one transition of the circuit breaker.
type BreakerChange struct {
	At    model.Time
	State string // closed, open, half-open
}

// perSecond adds one to the bucket of second at in series.
func perSecond(series []int32, at model.Time) []int32 {
	sec := int(at / (1000 * model.Millisecond))
	if series == nil {
		// A standard run's series spans about a minute: one array, not
		// seven grown one second at a time.
		series = make([]int32, 0, max(64, 2*sec))
	}
	for len(series) <= sec {
		series = append(series, 0)
	}
	series[sec]++
	return series
}

// metricsRecorder folds events into Metrics.
type metricsRecorder struct {
	m            Metrics
	firstLeased  []bool
	reviewCommit []model.Time
}

func (r *metricsRecorder) doc(j model.JobID) *DocMetrics {
	for int(j) > len(r.m.Docs) {
		r.m.Docs = append(r.m.Docs, DocMetrics{Job: model.JobID(len(r.m.Docs) + 1)})
		r.firstLeased = append(r.firstLeased, false)
		r.reviewCommit = append(r.reviewCommit, 0)
	}
	return &r.m.Docs[j-1]
}

// metricKinds are the kinds of event the metrics count; a stale fence is
// counted whatever the kind. (The test inlines into the recorder: most
// events need no call.)
const metricKinds = 1<<model.EvEnqueue | 1<<model.EvLease | 1<<model.EvExtract | 1<<model.EvCommit |
	1<<model.EvApply | 1<<model.EvRetry | 1<<model.EvDead | 1<<model.EvExhausted | 1<<model.EvCancel |
	1<<model.EvCancelAtLease | 1<<model.EvAck | 1<<model.EvCrash | 1<<model.EvPause | 1<<model.EvWorkFail |
	1<<model.EvBreaker

func (r *metricsRecorder) observe(e *model.Event) {
	if metricKinds&e.Kind.Bit() != 0 || e.Code == model.CodeStaleFence {
		r.count(e)
	}
}

func (r *metricsRecorder) count(e *model.Event) {
	switch e.Kind {
	case model.EvEnqueue:
		if e.OK {
			d := r.doc(e.Job)
			d.Tenant, d.Document = e.Tenant, e.Key
			d.QueueWait = -e.At
		}
	case model.EvLease:
		if !e.OK {
			break // a lease the breaker refused is no attempt
		}
		r.m.Leases++
		d := r.doc(e.Job)
		d.Attempts++
		if !r.firstLeased[e.Job-1] {
			r.firstLeased[e.Job-1] = true
			d.QueueWait += e.At
		}
	case model.EvExtract:
		if e.Stage == model.StageExtract {
			r.m.CallsPerSecond = perSecond(r.m.CallsPerSecond, e.At)
			r.m.Extractions++
			r.m.Tokens += e.N2
			d := r.doc(e.Job)
			d.Extractions++
			d.Inference += e.N
		}
	case model.EvCommit:
		r.observeCommit(e)
	case model.EvApply:
		r.observeApply(e)
	default:
		r.observeOutcome(e)
	}
}

func (r *metricsRecorder) observeCommit(e *model.Event) {
	r.m.Commits++
	if e.Code == model.CodeDeduped {
		r.m.Dedupes++
	} else if e.OK && e.Stage == model.StageReview {
		r.doc(e.Job)
		r.reviewCommit[e.Job-1] = e.At
	}
}

func (r *metricsRecorder) observeApply(e *model.Event) {
	if !e.OK {
		r.m.Dedupes++
		return
	}
	r.m.Effects++
	d := r.doc(e.Job)
	d.Effects++
	if e.Stage == model.StageReview && d.ReviewWait == 0 {
		d.ReviewWait = e.At - r.reviewCommit[e.Job-1]
	}
}

func (r *metricsRecorder) observeOutcome(e *model.Event) {
	switch e.Kind {
	case model.EvRetry:
		if e.OK {
			r.m.Retries++
		}
	case model.EvDead, model.EvExhausted:
		r.m.Dead++
	case model.EvCancel, model.EvCancelAtLease:
		r.m.Cancelled++
	case model.EvAck:
		if e.OK {
			r.m.Succeeded++
		}
	case model.EvCrash:
		r.m.Crashes++
	case model.EvPause:
		r.m.Pauses++
	case model.EvWorkFail:
		if e.Code == model.CodeProviderRateLimited {
			r.m.RateLimited++
			r.m.LimitedPerSecond = perSecond(r.m.LimitedPerSecond, e.At)
		}
	case model.EvBreaker:
		r.m.Breaker = append(r.m.Breaker, BreakerChange{At: e.At, State: strings.TrimPrefix(e.Text, "state=")})
	}
	if e.Code == model.CodeStaleFence && e.Kind != model.EvRefused { // the queue's refusal, not the caller's record of it
		r.m.StaleFences++
	}
}

// sampleDepth appends one queue-depth sample.
func (r *metricsRecorder) sampleDepth(live int) { r.m.QueueDepth = append(r.m.QueueDepth, int32(live)) }
