package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// errNotSim is a simulation check applied to an arm that did not simulate.
var errNotSim = errors.New("the arm has no simulation result")

// result is a check over the arm's own simulation result.
func result(says Text, f func(r *sim.Result) error) Check {
	return Check{Says: says, Test: func(o *Outcome, _ []Outcome) error {
		if o.Result == nil {
			return errNotSim
		}
		return f(o.Result)
	}}
}

// noViolation holds when every invariant held.
func noViolation() Check {
	return result(Text{PtBR: "nenhum invariante violado", En: "no invariant is violated"}, func(r *sim.Result) error {
		if r.Failed() {
			return fmt.Errorf("%s", r.Violations[0])
		}
		return nil
	})
}

// violates holds when the run broke the named invariant.
func violates(invariant string) Check {
	c := result(Text{PtBR: "viola " + invariant, En: "violates " + invariant}, func(r *sim.Result) error {
		for _, v := range r.Violations {
			if v.Invariant == invariant {
				return nil
			}
		}
		return fmt.Errorf("%s held (violations: %s)", invariant, violationNames(r))
	})
	c.Breaks = invariant
	return c
}

func violationNames(r *sim.Result) string {
	var names []string
	for _, v := range r.Violations {
		if !slices.Contains(names, v.Invariant) {
			names = append(names, v.Invariant)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// drained holds when the run reached quiescence and drained.
func drained() Check {
	return result(Text{PtBR: "o sistema drenou depois das falhas", En: "the system drained after the faults"}, func(r *sim.Result) error {
		if !r.Drained {
			return errors.New("the run did not drain")
		}
		return nil
	})
}

// metric holds when f(metrics) == want.
func metric(says Text, f func(m *sim.Metrics) int64, want int64) Check {
	return result(says, func(r *sim.Result) error {
		if got := f(&r.Metrics); got != want {
			return fmt.Errorf("got %d, want %d", got, want)
		}
		return nil
	})
}

// metricAtLeast holds when f(metrics) >= want.
func metricAtLeast(says Text, f func(m *sim.Metrics) int64, want int64) Check {
	return result(says, func(r *sim.Result) error { return atLeast(f(&r.Metrics), want) })
}

func atLeast(got, want int64) error {
	if got < want {
		return fmt.Errorf("got %d, want at least %d", got, want)
	}
	return nil
}

// match describes history events a check counts.
type match struct {
	kind     model.EventKind
	code     model.Code // CodeNone: any
	ok       int8       // 0 any, 1 only OK, -1 only not OK
	job      model.JobID
	stage    model.Stage // with hasStage
	hasStage bool
}

func (m match) test(e *model.Event) bool {
	return e.Kind == m.kind && (m.code == model.CodeNone || e.Code == m.code) &&
		(m.ok == 0 || (m.ok > 0) == e.OK) && (m.job == 0 || e.Job == m.job) &&
		(!m.hasStage || e.HasStage && e.Stage == m.stage)
}

// countEvents counts the run's history events that match m.
func countEvents(r *sim.Result, m match) int64 {
	n := int64(0)
	for i := range r.History {
		if m.test(&r.History[i]) {
			n++
		}
	}
	return n
}

// events holds when the history has between lo and hi events matching m
// (hi < 0: no upper bound).
func events(says Text, m match, lo, hi int64) Check {
	return result(says, func(r *sim.Result) error {
		n := countEvents(r, m)
		switch {
		case n < lo:
			return fmt.Errorf("%d %v event(s), want at least %d", n, m.kind, lo)
		case hi >= 0 && n > hi:
			return fmt.Errorf("%d %v event(s), want at most %d", n, m.kind, hi)
		}
		return nil
	})
}

// jobState holds when job id ended in state want (the last terminal event
// of the job in the history says so).
func jobState(says Text, id model.JobID, want model.State) Check {
	return result(says, func(r *sim.Result) error {
		got := finalState(r, id)
		if got != want {
			return fmt.Errorf("%v ended %v, want %v", id, got, want)
		}
		return nil
	})
}

// finalState replays the job's terminal events to find where it ended.
func finalState(r *sim.Result, id model.JobID) model.State {
	st := model.Pending
	for i := range r.History {
		e := &r.History[i]
		if e.Job != id || !e.OK {
			continue
		}
		switch e.Kind {
		case model.EvAck:
			st = model.Succeeded
		case model.EvDead, model.EvExhausted:
			st = model.Dead
		case model.EvCancel, model.EvCancelAtLease:
			st = model.Cancelled
		case model.EvRedrive:
			st = model.Pending
		}
	}
	return st
}

// arm finds the outcome of the arm labelled name.
func arm(all []Outcome, name string) (*Outcome, error) {
	for i := range all {
		if all[i].Arm.Name() == name {
			if all[i].Result == nil {
				return nil, fmt.Errorf("arm %s did not run", name)
			}
			return &all[i], nil
		}
	}
	return nil, fmt.Errorf("no arm %s", name)
}

// compare holds when f(this arm) relates to f(arm other) as rel says:
// this·den > other·num ("more than num/den times"), or, with less, this·den
// < other·num.
func compare(says Text, other string, f func(r *sim.Result) int64, less bool, num, den int64) Check {
	return Check{Says: says, Test: func(o *Outcome, all []Outcome) error {
		if o.Result == nil {
			return errNotSim
		}
		ref, err := arm(all, other)
		if err != nil {
			return err
		}
		a, b := f(o.Result), f(ref.Result)
		ok := a*den > b*num
		if less {
			ok = a*den < b*num
		}
		if !ok {
			rel := "more than"
			if less {
				rel = "less than"
			}
			return fmt.Errorf("%d here, %d for %s: want %s %d/%d of it", a, b, other, rel, num, den)
		}
		return nil
	}}
}

// customCheck is a check over a custom arm's result.
func customCheck(says Text, f func(c *Custom) error) Check {
	return Check{Says: says, Test: func(o *Outcome, _ []Outcome) error {
		if o.Custom == nil {
			return errors.New("the arm has no custom result")
		}
		return f(o.Custom)
	}}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// dlqEntry holds when job id's first DLQ write has reason code and was
// written after attempts attempts.
func dlqEntry(says Text, id model.JobID, code model.Code, attempts int64) Check {
	return result(says, func(r *sim.Result) error {
		for i := range r.History {
			e := &r.History[i]
			if e.Kind != model.EvDLQWrite || e.Job != id || !e.OK {
				continue
			}
			if e.Code != code || e.N != attempts {
				return fmt.Errorf("%v dead-lettered with %v after %d attempt(s), want %v after %d", id, e.Code, e.N, code, attempts)
			}
			return nil
		}
		return fmt.Errorf("%v never reached the DLQ", id)
	})
}

// maxAttempt holds when no lease was granted for an attempt above limit.
func maxAttempt(says Text, limit int32) Check {
	return result(says, func(r *sim.Result) error {
		for i := range r.History {
			if e := &r.History[i]; e.Kind == model.EvLease && e.OK && e.Attempt > limit {
				return fmt.Errorf("%v leased for attempt %d (event #%d)", e.Job, e.Attempt, e.Seq)
			}
		}
		return nil
	})
}

// applied counts the effects the consumer applied for stage (any job).
func applied(r *sim.Result, stage model.Stage) int64 {
	n := int64(0)
	for i := range r.History {
		if e := &r.History[i]; e.Kind == model.EvApply && e.OK && e.HasStage && e.Stage == stage {
			n++
		}
	}
	return n
}

// appliedEffects holds when the consumer applied exactly want effects of
// stage.
func appliedEffects(says Text, stage model.Stage, want int64) Check {
	return result(says, func(r *sim.Result) error {
		if got := applied(r, stage); got != want {
			return fmt.Errorf("%d %v effect(s) applied, want %d", got, stage, want)
		}
		return nil
	})
}

// threeNumbers holds when every document has its queue wait, inference
// and review wait measured (inference and review wait positive).
func threeNumbers() Check {
	return result(Text{PtBR: "cada documento tem os três números: espera, inferência e revisão", En: "every document has its three numbers: queue wait, inference, review wait"},
		func(r *sim.Result) error {
			if len(r.Metrics.Docs) == 0 {
				return errors.New("no document ran")
			}
			for _, d := range r.Metrics.Docs {
				if d.QueueWait < 0 || d.Inference <= 0 || d.ReviewWait <= 0 {
					return fmt.Errorf("%v: queue wait %d, inference %d, review wait %d", d.Job, d.QueueWait, d.Inference, d.ReviewWait)
				}
			}
			return nil
		})
}

// depthPeaksMidway holds when the queue depth's peak is neither the first
// nor the last sample and the queue empties afterwards.
func depthPeaksMidway() Check {
	return result(Text{PtBR: "a profundidade da fila sobe, tem um pico e volta a zero", En: "the queue depth rises, peaks and returns to zero"},
		func(r *sim.Result) error {
			q := r.Metrics.QueueDepth
			peak := 0
			for i, d := range q {
				if d > q[peak] {
					peak = i
				}
			}
			switch {
			case len(q) < 3 || q[peak] < 2:
				return fmt.Errorf("depth never rose above %d", q[peak])
			case peak == 0 || q[len(q)-1] != 0:
				return fmt.Errorf("peak %d at tick %d of %d, last sample %d", q[peak], peak, len(q), q[len(q)-1])
			}
			return nil
		})
}

// sameInference holds when every document's inference time equals the one
// it had in arm other: the same work, whatever the queueing.
func sameInference(other string) Check {
	return Check{Says: Text{PtBR: "cada documento tem a mesma inferência da outra variante", En: "every document has the same inference time as in the other arm"},
		Test: func(o *Outcome, all []Outcome) error {
			ref, err := arm(all, other)
			if err != nil {
				return err
			}
			a, b := o.Result.Metrics.Docs, ref.Result.Metrics.Docs
			if len(a) != len(b) {
				return fmt.Errorf("%d documents here, %d in %s", len(a), len(b), other)
			}
			for i := range a {
				if a[i].Inference != b[i].Inference {
					return fmt.Errorf("%v: inference %d here, %d in %s", a[i].Job, a[i].Inference, b[i].Inference, other)
				}
			}
			return nil
		}}
}

// totalQueueWait sums the documents' queue waits.
func totalQueueWait(r *sim.Result) int64 {
	var t int64
	for _, d := range r.Metrics.Docs {
		t += d.QueueWait
	}
	return t
}
