package invariants

import (
	"slices"
	"testing"

	"github.com/durasim/durasim/model"
)

// Builders for the fixtures of the oracle layer (shadow, policy,
// idempotency, breaker, liveness, read-back), in the vocabulary of
// helpers_test.go. Each event is built as the model (or the simulator)
// emits it: the same actor, fields and OK flag.

const (
	ingest   = model.StageIngest
	extract  = model.StageExtract
	validate = model.StageValidate
	review   = model.StageReview
	sec      = 1000 * ms
)

var simActor = model.Actor{Role: model.RoleSim}

// phase is the simulator announcing a phase ("quiesce", "drained").
func phase(text string) model.Event {
	return model.Event{Kind: model.EvPhase, Actor: simActor, Text: text, OK: true}
}

// askDeadline is the deadline-pressure fault on job j's request: its
// client asks for a deadline of span (sim.announceDeadline).
func askDeadline(j model.JobID, span model.Time) model.Event {
	return model.Event{Kind: model.EvFault, Actor: api, Tenant: "acme", Key: key(j), Text: "deadline", N2: span}
}

// breakerTo is the breaker announcing its new state.
func breakerTo(st model.BreakerState) model.Event {
	return model.Event{Kind: model.EvBreaker, Actor: simActor, Text: "state=" + st.String(), OK: true}
}

// withN and withN2 set an event's kind-specific numbers.
func withN(n model.Time, e model.Event) model.Event { e.N = n; return e }

func withN2(n2 int64, e model.Event) model.Event { e.N2 = n2; return e }

// pay sets the payload hash a request carried (enqueue and commit).
func pay(p uint64, e model.Event) model.Event { e.Payload = p; return e }

// payAll sets the payload hash of every enqueue and commit of evs.
func payAll(p uint64, evs []model.Event) []model.Event {
	out := slices.Clone(evs)
	for i := range out {
		if k := out[i].Kind; k == model.EvEnqueue || k == model.EvCommit {
			out[i].Payload = p
		}
	}
	return out
}

// deduped is a resubmission under job j's key with payload p, answered with
// the existing job.
func deduped(j model.JobID, p uint64) model.Event {
	e := jobEv(model.EvEnqueue, api, j)
	e.OK, e.Code, e.Payload = false, model.CodeDeduped, p
	return e
}

// conflict is a resubmission under job j's key with payload p, refused.
func conflict(j model.JobID, p uint64) model.Event {
	e := jobEv(model.EvEnqueue, api, j)
	e.OK, e.Code, e.Payload = false, model.CodeIdempotencyConflict, p
	return e
}

// expiredLease is LeaseNext finding job j's lease (fence, attempt) expired:
// recorded under the holder, not OK.
func expiredLease(j model.JobID, fence uint64, attempt int32) model.Event {
	e := jobEv(model.EvLeaseExpired, w0, j)
	e.OK, e.Fence, e.Attempt = false, fence, attempt
	return e
}

// exhaustedAt is LeaseNext dead-lettering job j, which has no attempt left:
// recorded under the worker that asked, with the job's last fence.
func exhaustedAt(j model.JobID, fence uint64, attempt int32, c model.Code) model.Event {
	e := jobEv(model.EvExhausted, w1, j)
	e.Fence, e.Attempt, e.Code = fence, attempt, c
	return e
}

// cancelled is the policy cancelling job j after a failure under fence.
func cancelled(j model.JobID, fence uint64) model.Event {
	e := fenced(model.EvCancel, j, fence)
	e.Code = model.CodeDeadlineExceeded
	return e
}

// dlqOf is a DLQ write announcing the attempts and tokens of the job.
func dlqOf(j model.JobID, c model.Code, attempts int32, tokens int64) model.Event {
	e := dlqWrite(j, c)
	e.N, e.N2 = int64(attempts), tokens
	return e
}

// work is stage st's work starting under fence, spending tokens.
func work(j model.JobID, fence uint64, st model.Stage, tokens int64) model.Event {
	e := jobEv(model.EvExtract, w0, j)
	e.OK = false
	e.Fence, e.Stage, e.HasStage, e.N, e.N2 = fence, st, true, ms/2, tokens
	return e
}

// crash is a worker dying while it holds job j under fence.
func crash(j model.JobID, fence uint64) model.Event {
	return model.Event{Kind: model.EvCrash, Actor: w0, Job: j, Fence: fence, Boundary: model.AfterLease}
}

// prune is the relay's retention removing event id's row.
func prune(j model.JobID, id model.EventID) model.Event {
	return model.Event{Kind: model.EvPrune, Actor: relay, Job: j, EventID: id, OK: true}
}

// passDone is the relay's record of a prune pass that pruned n rows.
func passDone(n int64) model.Event {
	return model.Event{Kind: model.EvPrune, Actor: relay, N: n, OK: true}
}

// redriveTo is a redrive that announces the checkpoint the job resumes at.
func redriveTo(j model.JobID, st model.Stage) model.Event {
	e := redrive(j)
	e.Stage, e.HasStage = st, true
	return e
}

// failDead is a permanent failure under fence, dead-lettered on attempt 1.
func failDead(j model.JobID, fence uint64, c model.Code) []model.Event {
	return one(failed(j, fence, c), dlqOf(j, c, 1, 0), dead(j, fence, c))
}

// rest is a job's stages from ingest under fence and their delivery: the
// part of clean after the lease.
func rest(j model.JobID, fence uint64, first model.EventID) []model.Event {
	return cat(stages(j, fence, first), delivered(j, first))
}

// from times evs from t on, a millisecond apart.
func from(t model.Time, evs ...model.Event) []model.Event {
	out := slices.Clone(evs)
	for i := range out {
		out[i].At = t + model.Time(i)*ms
	}
	return out
}

// seqOf is the seq of the last event of kind naming job j in the numbered
// history h (0: none).
func seqOf(h []model.Event, kind model.EventKind, j model.JobID) uint64 {
	return find(h, kind, j).Seq
}

// find is the last event of kind naming job j in h.
func find(h []model.Event, kind model.EventKind, j model.JobID) model.Event {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Kind == kind && h[i].Job == j {
			return h[i]
		}
	}
	return model.Event{}
}

// lastSeq is the seq of the last event naming job j in h.
func lastSeq(h []model.Event, j model.JobID) uint64 {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Job == j {
			return h[i].Seq
		}
	}
	return 0
}

// cfgWith is testCfg changed by f.
func cfgWith(f func(c *model.Config)) *Config {
	c := testCfg
	f(&c.Model)
	return &c
}

// runOracle is runTable for a check of the oracle layer, and more: a
// fixture that expects no violation is a whole, drained history (the
// failing one with its fault removed), so it must break no invariant at
// all.
func runOracle(t *testing.T, inv string, cases []fixture) {
	t.Helper()
	runTable(t, inv, cases)
	for _, c := range cases {
		if len(c.want) == 0 {
			t.Run(c.name+"/nothing else", func(t *testing.T) { wholeIsClean(t, c) })
		}
	}
}

func wholeIsClean(t *testing.T, c fixture) {
	t.Helper()
	cfg := testCfg
	if c.cfg != nil {
		cfg = *c.cfg
	}
	if got := Check(cfg, hist(c.history...), c.final, !c.undrained); len(got) != 0 {
		t.Fatalf("a passing fixture must be a clean history; it has %d violations:\n%s", len(got), lines(got))
	}
}

// regression is a fixture a check gets wrong today: a false positive (want
// is empty: the history is legitimate and must be clean), a false negative
// or a message that does not name the events proving it.
type regression struct {
	bug string
	inv string
	fixture
}

// runRegressions runs fixtures of histories a check once got wrong (each says
// how): the fixture holds it to the fix.
func runRegressions(t *testing.T, cases []regression) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.want) == 0 {
				wholeIsClean(t, c.fixture)
				return
			}
			runTable(t, c.inv, []fixture{c.fixture})
		})
	}
}

// full copies f with every list deep-copied, so a fixture can change one
// field of the read-back state.
func full(f Final, change func(f *Final)) Final {
	f.Jobs, f.Rows, f.Effects = slices.Clone(f.Jobs), slices.Clone(f.Rows), slices.Clone(f.Effects)
	f.Messages, f.DLQ, f.Audit = slices.Clone(f.Messages), slices.Clone(f.DLQ), slices.Clone(f.Audit)
	if change != nil {
		change(&f)
	}
	return f
}

// jobIn returns job id of f.
func jobIn(f *Final, id model.JobID) *model.Job {
	for i := range f.Jobs {
		if f.Jobs[i].ID == id {
			return &f.Jobs[i]
		}
	}
	panic("no such job in the fixture")
}

// envIn returns the DLQ entry of job id in f.
func envIn(f *Final, id model.JobID) *model.Envelope {
	for i := range f.DLQ {
		if f.DLQ[i].Job == id {
			return &f.DLQ[i]
		}
	}
	panic("no such DLQ entry in the fixture")
}

// seqOfEvent is the seq of the first event of kind about outbox event id.
func seqOfEvent(h []model.Event, kind model.EventKind, id model.EventID) uint64 {
	for _, e := range h {
		if e.Kind == kind && e.EventID == id {
			return e.Seq
		}
	}
	return 0
}
