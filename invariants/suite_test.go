package invariants

import (
	"slices"
	"testing"

	"github.com/durasim/durasim/model"
)

// retag gives every event of evs the tenant and key of another job.
func retag(evs []model.Event, tenant, k string) []model.Event {
	for i := range evs {
		evs[i].Tenant, evs[i].Key = tenant, k
	}
	return evs
}

// finished is the final rows and effects of job j's four stages, events
// first..first+3.
func finished(f *Final, j model.JobID, tenant, k string, first model.EventID) {
	f.Jobs = append(f.Jobs, model.Job{ID: j, Tenant: tenant, Key: k, State: model.Succeeded})
	for i, st := range model.Stages() {
		id := first + model.EventID(i)
		f.Rows = append(f.Rows, model.OutboxRow{EventID: id, Key: k, Stage: st, Tenant: tenant, Job: j, Published: true})
		f.Effects = append(f.Effects, model.Effect{EventID: id, Key: k, Stage: st, Tenant: tenant, Job: j})
	}
}

// cleanRun is a history with every path of the correct design: a plain
// job; another tenant's job with a heartbeat, a retry, a relay republish
// and a duplicate delivery; a poison job reprocessed as a new version; a
// job that ran out of attempts and was redriven; status queries.
func cleanRun() ([]model.Event, Final) {
	const g, d3v2 = "globex", "acme:d3:v2"
	job2 := retag(cat(one(enqueue(2), lease(2, 2, 1), heartbeat(2, 2), failed(2, 2, model.CodeTransient), retry(2, 2, 1, ms), lease(2, 3, 2)),
		stages(2, 3, 5), delivered(2, 5), one(publish(2, model.StageReview, 8), duplicate(2, model.StageReview, 8))), g, "globex:d1:v1")
	job4 := retag(cat(one(with(reprocessed(4), func(e *model.Event) { e.Key = d3v2 }), reprocess(3, 4, "op-ana"), lease(4, 5, 1)),
		stages(4, 5, 9), delivered(4, 9)), "acme", d3v2)
	job5 := cat(one(enqueue(5), lease(5, 6, 1), failed(5, 6, model.CodeTransient), retry(5, 6, 1, 0),
		lease(5, 7, 2), failed(5, 7, model.CodeTransient), retry(5, 7, 2, 0), lease(5, 8, 3), failed(5, 8, model.CodeTransient),
		with(dlqWrite(5, model.CodeMaxAttemptsExceeded), func(e *model.Event) { e.N = 3 }), dead(5, 8, model.CodeMaxAttemptsExceeded),
		redrive(5), lease(5, 9, 1)),
		stages(5, 9, 13), delivered(5, 13))
	history := cat(clean(1, 1, 1), job2,
		one(enqueue(3), lease(3, 4, 1), with(failed(3, 4, model.CodePoisonSchema), func(e *model.Event) { e.Text = "paths=$.fields.total" }),
			with(dlqWrite(3, model.CodePoisonSchema), func(e *model.Event) { e.N = 1 }), dead(3, 4, model.CodePoisonSchema)),
		job4, job5,
		one(with(status(1, "acme"), func(e *model.Event) { e.Text = "owner=acme state=succeeded" }), rejected(status(1, g), model.CodeNotFound),
			model.Event{Kind: model.EvPhase, Actor: model.Actor{Role: model.RoleSim}, Text: "drained", OK: true}))

	var f Final
	finished(&f, 1, "acme", key(1), 1)
	finished(&f, 2, g, "globex:d1:v1", 5)
	finished(&f, 4, "acme", d3v2, 9)
	finished(&f, 5, "acme", key(5), 13)
	f.Jobs = append(f.Jobs, model.Job{ID: 3, Tenant: "acme", Key: key(3), State: model.Dead})
	env := model.Envelope{Job: 3, CorrelationID: key(3), Tenant: "acme", OriginalQueue: "pipeline", AgentID: "extractor",
		Reason: model.CodePoisonSchema, SchemaPaths: []string{"$.fields.total"}, Status: model.Resolved, Attempts: 1, ErrorRef: 0x5eed}
	f.DLQ = append(f.DLQ, env)
	env.Job, env.CorrelationID, env.Reason, env.SchemaPaths = 5, key(5), model.CodeMaxAttemptsExceeded, nil
	env.Attempts, env.RedriveCount = 3, 1
	f.DLQ = append(f.DLQ, env)
	f.Audit = []model.AuditEntry{
		{Action: "reprocess", OldJob: 3, NewJob: 4, Operator: "op-ana", Tenant: "acme"},
		{Action: "redrive", OldJob: 5, NewJob: 5, Operator: "op", Tenant: "acme"},
	}
	return hist(history...), f
}

func TestCleanHistoryHasNoViolation(t *testing.T) {
	h, f := cleanRun()
	if got := Check(testCfg, h, f, true); len(got) != 0 {
		t.Fatalf("clean history: %d violations:\n%s", len(got), lines(got))
	}
	one := hist(clean(1, 1, 1)...)
	if got := Check(testCfg, one, succeeded(1), true); len(got) != 0 {
		t.Fatalf("one clean job: %d violations:\n%s", len(got), lines(got))
	}
}

func TestViolationString(t *testing.T) {
	for _, c := range []struct {
		v    Violation
		want string
	}{
		{Violation{ExactlyOnce, 3, "j3 stage=review applied twice", []uint64{41, 88}}, "exactly-once-effect: j3 stage=review applied twice (events #41, #88)"},
		{Violation{Fencing, 1, "j1 ack with stale fence 1", []uint64{7}}, "fencing: j1 ack with stale fence 1 (event #7)"},
		{Violation{DLQHygiene, 0, "audit entry leaks", nil}, "dlq-hygiene: audit entry leaks"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestMillis(t *testing.T) {
	for _, c := range []struct {
		t    model.Time
		want string
	}{{0, "0ms"}, {400 * ms, "400ms"}, {1500 * 1000, "1.5ms"}, {-ms, "-1ms"}, {-500 * 1000, "-0.5ms"}, {-1_250_000, "-1.25ms"}} {
		if got := millis(c.t); got != c.want {
			t.Errorf("millis(%d) = %q, want %q", c.t, got, c.want)
		}
	}
}

// Safety violations are available during the run; Finish adds the final
// ones after them, and can be called again with the same answer.
func TestSuiteLifecycle(t *testing.T) {
	h := hist(enqueue(1), lease(1, 1, 1), by(w1, lease(1, 2, 2)))
	s := NewSuite(testCfg)
	for i := range h {
		if s.Failed() {
			t.Fatalf("failed before event #%d", h[i].Seq)
		}
		s.Record(&h[i])
	}
	// The takeover is unannounced (consistency) and overlaps a valid lease (fencing).
	if vs := s.Violations(); !s.Failed() || len(vs) != 2 || vs[0].Invariant != Consistency || vs[1].Invariant != Fencing {
		t.Fatalf("Violations() = %v, want a consistency and a fencing violation", vs)
	}
	s.Drained(false)
	first := s.Finish(Final{})
	if len(first) != 3 || first[0].Invariant != Consistency || first[1].Invariant != Fencing || first[2].Invariant != Liveness {
		t.Fatalf("Finish = \n%s want consistency, fencing, then liveness", lines(first))
	}
	if again := s.Finish(Final{}); !slices.EqualFunc(first, again, func(a, b Violation) bool { return a.String() == b.String() }) {
		t.Fatalf("second Finish differs:\n%s", lines(again))
	}
}

// steadyCfg lets a job be retried without end, so a steady history can
// lease the same jobs again and again.
var steadyCfg = func() Config {
	c := testCfg
	c.Model.MaxAttempts = 1 << 30
	c.Model.Breaker.Window = 0 // every outcome fails: a breaker would open
	return c
}()

// steady builds per-job lease, heartbeat, advance, failure and retry
// events whose strings are made once, as the model's are.
func steady(jobs int) [][5]model.Event {
	evs := make([][5]model.Event, jobs+1)
	for j := 1; j <= jobs; j++ {
		id := model.JobID(j)
		evs[j] = [5]model.Event{lease(id, 0, 1), heartbeat(id, 0), advance(id, 0, model.StageExtract),
			failed(id, 0, model.CodeTransient), retry(id, 0, 1, 0)}
	}
	return evs
}

// feeder replays the steady events with growing fences, attempts, times
// and seqs.
type feeder struct {
	s        *Suite
	evs      [][5]model.Event
	attempts []int32
	n        int
	seq      uint64
	fence    uint64
}

func newFeeder(jobs int) *feeder {
	f := &feeder{s: NewSuite(steadyCfg), evs: steady(jobs), attempts: make([]int32, jobs+1)}
	for j := 1; j <= jobs; j++ {
		for _, e := range []model.Event{enqueue(model.JobID(j)), commit(model.JobID(j), model.StageIngest, model.EventID(j))} {
			f.seq++
			e.Seq, e.At = f.seq, model.Time(f.seq)*1000
			f.s.Record(&e)
		}
	}
	return f
}

// cycle records one job's lease, heartbeat, advance, failure and retry.
func (f *feeder) cycle() {
	j := 1 + f.n%(len(f.evs)-1) // in turn, as a queue hands them out: each retried job is ready again last
	f.n++
	job := &f.evs[j]
	f.fence++
	f.attempts[j]++
	for i := range job {
		e := &job[i]
		f.seq++
		e.Seq, e.At, e.Fence, e.Attempt = f.seq, model.Time(f.seq)*1000, f.fence, f.attempts[j]
		if e.Kind == model.EvRetry {
			e.N2, _ = backoffBound(steadyCfg.Model.Retry, f.attempts[j])
		}
		f.s.Record(e)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	f := newFeeder(100)
	for range 300 {
		f.cycle() // warm-up: the tables have grown
	}
	if allocs := testing.AllocsPerRun(1000, f.cycle); allocs != 0 {
		t.Errorf("Record allocates %.1f times per lease/heartbeat/advance/failure/retry cycle, want 0", allocs)
	}
	if f.s.Failed() {
		t.Fatalf("steady history has violations:\n%s", lines(f.s.Violations()))
	}
}

// BenchmarkRecord measures one steady-state event (a fifth of a
// lease/heartbeat/advance/failure/retry cycle) over 10,000 jobs.
func BenchmarkRecord(b *testing.B) {
	f := newFeeder(10_000)
	b.ReportAllocs()
	for b.Loop() {
		f.cycle()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(5*b.N), "ns/event")
}

// Ids the suite cannot place (a status query about any id, a bogus job or
// event id) neither panic nor grow its tables.
func TestRecordToleratesBogusIDs(t *testing.T) {
	s := NewSuite(testCfg)
	for _, e := range hist(
		status(1<<40, "acme"),
		lease(1<<40, 1, 1),
		publish(-3, model.StageIngest, -4),
		apply(1<<50, model.StageReview, 1<<50),
		with(reprocess(-1, 1<<45, "op"), func(e *model.Event) { e.Key = "" }),
	) {
		s.Record(&e)
	}
	if s.njobs > 1 || s.outbox.end > 1 {
		t.Errorf("tables grew to %d jobs and %d events", s.njobs, s.outbox.end)
	}
	s.Drained(true)
	_ = s.Finish(Final{})
}
