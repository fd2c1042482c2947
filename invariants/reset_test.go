package invariants

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/durasim/durasim/model"
)

// run is one history fed to a suite, with what Finish is given.
type run struct {
	cfg     Config
	history []model.Event
	final   Final
	drained bool
}

// outcome is what a suite says about a run: its safety violations before
// Finish, and Finish's answer.
type outcome struct {
	Safety, Final []Violation
}

func play(s *Suite, r run) outcome {
	for i := range r.history {
		s.Record(&r.history[i])
	}
	s.Drained(r.drained)
	return outcome{s.Violations(), s.Finish(r.final)}
}

// dirtyRun breaks most invariants: a second valid lease, a stale ack, a
// double apply, another tenant's key, a secret in an event text, an
// attempt past the maximum, a reprocess naming no operator, a dual write
// never published, and undrained jobs.
func dirtyRun() run {
	secretText := with(jobEv(model.EvHeartbeat, w0, 2), func(e *model.Event) { e.Text = testCfg.Secrets[0] })
	h := hist(cat(
		one(enqueue(1), accept(1), lease(1, 1, 1), by(w1, lease(1, 2, 2)), ack(1, 1)),
		one(commit(1, model.StageIngest, 1), publish(1, model.StageIngest, 1), apply(1, model.StageIngest, 1), apply(1, model.StageIngest, 1)),
		one(enqueueAs(2, "globex", key(1)), secretText, lease(2, 3, 9), dbWriteEv(2, model.StageExtract)),
		one(enqueue(3), lease(3, 4, 1), dead(3, 4, model.CodePoisonSchema), reprocessed(4),
			with(reprocess(3, 4, "op"), func(e *model.Event) { e.Text = "" })),
		one(accept(7), publish(5, model.StageReview, 30)),
	)...)
	f := Final{DLQ: []model.Envelope{{Job: 3, Reason: model.CodeTransient, RawError: "boom", Tenant: "acme"}},
		Audit: []model.AuditEntry{{Action: "redrive", OldJob: 9, NewJob: 9, Operator: testCfg.Secrets[1]}}}
	return run{cfg: testCfg, history: h, final: f, drained: true}
}

// otherCfg has other limits and many long secrets sharing a prefix, so its
// index is larger than testCfg's and laid out differently.
func otherCfg() Config {
	c := Config{Model: model.DefaultConfig()}
	c.Model.MaxAttempts = 2
	for i := range 300 {
		c.Secrets = append(c.Secrets, fmt.Sprintf("unexpected token near 'Fatura %05d de acme'", i))
	}
	return c
}

func TestResetMatchesFresh(t *testing.T) {
	dirty := dirtyRun()
	if o := play(NewSuite(dirty.cfg), dirty); len(o.Safety) < 5 || len(o.Final) <= len(o.Safety) {
		t.Fatalf("the dirty run should break several invariants, before and at Finish:\n%s", lines(o.Final))
	}
	h, f := cleanRun()
	cleanR := run{cfg: testCfg, history: h, final: f, drained: true}
	undrained := dirty
	undrained.drained, undrained.cfg = false, otherCfg()
	short := run{cfg: Config{Model: model.DefaultConfig(), Secrets: []string{"abc", ""}},
		history: hist(enqueue(1), with(accept(1), func(e *model.Event) { e.Text = "xabcx" })), drained: false}

	for _, c := range []struct {
		name          string
		first, second run
	}{
		{"dirty then clean", dirty, cleanR},
		{"clean then dirty", cleanR, dirty},
		{"dirty then undrained", dirty, undrained},
		{"undrained then dirty", undrained, dirty},
		{"dirty then short secrets", dirty, short},
		{"short secrets then dirty", short, dirty},
		{"dirty twice", dirty, dirty},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := play(NewSuite(c.second.cfg), c.second)
			s := NewSuite(c.first.cfg)
			play(s, c.first)
			s.Reset(c.second.cfg)
			if diff := cmp.Diff(want, play(s, c.second)); diff != "" {
				t.Errorf("reset suite differs from a fresh one (-fresh +reset):\n%s", diff)
			}
			// And a third run: the storage grown by the second is reused.
			s.Reset(c.first.cfg)
			if diff := cmp.Diff(play(NewSuite(c.first.cfg), c.first), play(s, c.first)); diff != "" {
				t.Errorf("second reset differs (-fresh +reset):\n%s", diff)
			}
		})
	}
}

// A reset suite holds no trace of its run: its tables and maps are empty.
func TestResetForgetsTheRun(t *testing.T) {
	d := dirtyRun()
	s := NewSuite(d.cfg)
	play(s, d)
	s.Reset(testCfg)
	fresh := NewSuite(testCfg)
	if s.njobs != fresh.njobs || len(s.owners)+len(s.ownerList)+len(s.applied)+len(s.promises)+len(s.buckets) != 0 ||
		len(s.safety)+len(s.writes)+len(s.orphans)+len(s.outbox.live)+len(s.outbox.retired) != 0 ||
		s.outbox.base != 0 || s.outbox.end != 0 || s.drained || s.Failed() ||
		len(s.ops.redrives)+len(s.ops.reprocesses)+len(s.ops.redrive.taken) != 0 || s.fv.f.sys != nil || len(s.fv.state) != 0 {
		t.Fatalf("reset suite keeps state of its run: %+v", s)
	}
	for id := range s.njobs {
		if *s.at(id) != (job{}) {
			t.Fatalf("job %d survived the reset: %+v", id, *s.at(id))
		}
	}
	for i, p := range s.pages {
		for k, j := range p[:cap(p)] {
			if j != (job{}) {
				t.Fatalf("page %d entry %d not zeroed: %+v", i, k, j)
			}
		}
	}
	for _, o := range s.outbox.mem[:cap(s.outbox.mem)] {
		if o != (outboxEvent{}) {
			t.Fatalf("outbox entry not zeroed: %+v", o)
		}
	}
}

// randomRun draws a history over a few jobs, fences, event ids, tenants
// and keys, mixing the fixture builders so that every checker fires.
func randomRun(t *rapid.T) run {
	job := rapid.Int64Range(-1, 6)
	fence := rapid.Uint64Range(0, 6)
	stage := rapid.SampledFrom(model.Stages())
	evID := rapid.Int64Range(0, 10)
	n := rapid.IntRange(0, 60).Draw(t, "events")
	evs := make([]model.Event, 0, n)
	for i := range n {
		j := model.JobID(job.Draw(t, "job"))
		f := fence.Draw(t, "fence")
		st := stage.Draw(t, "stage")
		id := model.EventID(evID.Draw(t, "eventID"))
		var e model.Event
		switch rapid.IntRange(0, 18).Draw(t, fmt.Sprint("kind", i)) {
		case 0:
			e = enqueue(j)
		case 1:
			e = enqueueAs(j, rapid.SampledFrom([]string{"acme", "globex"}).Draw(t, "tenant"),
				key(model.JobID(job.Draw(t, "keyOf"))))
		case 2:
			e = accept(j)
		case 3:
			e = by(rapid.SampledFrom([]model.Actor{w0, w1}).Draw(t, "worker"), lease(j, f, int32(rapid.IntRange(1, 6).Draw(t, "attempt"))))
		case 4:
			e = heartbeat(j, f)
		case 5:
			e = advance(j, f, st)
		case 6:
			e = ack(j, f)
		case 7:
			e = retry(j, f, 1, model.Time(rapid.Int64Range(-1, 5).Draw(t, "delay"))*100*ms)
		case 8:
			e = dead(j, f, rapid.SampledFrom([]model.Code{model.CodePoisonSchema, model.CodeTransient}).Draw(t, "code"))
		case 9:
			e = commit(j, st, id)
		case 10:
			e = publish(j, st, id)
		case 11:
			e = apply(j, st, id)
		case 12:
			e = duplicate(j, st, id)
		case 13:
			e = dbWriteEv(j, st)
		case 14:
			e = dlqWrite(j, rapid.SampledFrom([]model.Code{model.CodePoisonSchema, model.CodeTransient}).Draw(t, "reason"))
		case 15:
			e = redrive(j)
		case 16:
			e = reprocess(j, model.JobID(job.Draw(t, "new")), rapid.SampledFrom([]string{"", "op"}).Draw(t, "operator"))
		case 17:
			e = status(j, rapid.SampledFrom([]string{"acme", "globex"}).Draw(t, "asker"))
		case 18:
			e = cancelAtLease(j)
		}
		if rapid.IntRange(0, 9).Draw(t, "leak") == 0 {
			e.Text = rapid.SampledFrom(testCfg.Secrets).Draw(t, "secret")
		}
		if rapid.IntRange(0, 9).Draw(t, "refused") == 0 {
			e.OK = false
		}
		evs = append(evs, e)
	}
	cfg := testCfg
	if rapid.Bool().Draw(t, "otherCfg") {
		cfg = otherCfg()
	}
	var f Final
	if rapid.Bool().Draw(t, "final") {
		f = succeeded(1, 2)
		f.Audit = []model.AuditEntry{{Action: "redrive", OldJob: 1, NewJob: 1}}
	}
	return run{cfg: cfg, history: hist(evs...), final: f, drained: rapid.Bool().Draw(t, "drained")}
}

// A suite reset after any run answers any other run as a fresh one does.
func TestResetDirtySuiteEqualsFresh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		first, second := randomRun(t), randomRun(t)
		s := NewSuite(first.cfg)
		play(s, first)
		s.Reset(second.cfg)
		if diff := cmp.Diff(play(NewSuite(second.cfg), second), play(s, second)); diff != "" {
			t.Fatalf("reset suite differs from a fresh one (-fresh +reset):\n%s", diff)
		}
	})
}

// BenchmarkResetReplay is one short run on a reused suite, against one
// on a new suite.
func BenchmarkResetReplay(b *testing.B) {
	h, f := cleanRun()
	r := run{cfg: testCfg, history: h, final: f, drained: true}
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			play(NewSuite(testCfg), r)
		}
	})
	b.Run("reset", func(b *testing.B) {
		s := NewSuite(testCfg)
		b.ReportAllocs()
		for b.Loop() {
			s.Reset(testCfg)
			play(s, r)
		}
	})
}
