package rivertarget

import (
	"context"
	"testing"

	"github.com/durasim/durasim/target"
)

// halfRand draws the middle of every range: a retry lands at exactly the
// policy's base delay.
type halfRand struct{}

func (halfRand) Int64N(n int64) int64 { return n / 2 }

var ctx = context.Background()

func openTest(t *testing.T) *Queue {
	t.Helper()
	q, err := Open(ctx, SQLite, "", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	if err := q.Reset(ctx, halfRand{}); err != nil {
		t.Fatal(err)
	}
	return q
}

// must(call)(t) is call's value, or the test's end on its error.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

const s = target.Second

var doc1 = target.InsertReq{Kind: "doc", Args: target.Args{Tenant: "acme", Doc: "d1", Version: 1}, MaxAttempts: 3, Unique: true}

// A job's life through River's SQL: a unique insert and its duplicate, a
// fetch, an error retried after the policy's delay (made available at
// once: 1 s is within the scheduler's interval), a second fetch.
func TestRetryAfterError(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w1")
	ins := must(c.Insert(ctx, 1*s, doc1))(t)
	dup := must(c.Insert(ctx, 1*s, doc1))(t)
	if ins.Skipped || !dup.Skipped || dup.Job != ins.Job {
		t.Fatalf("insert %+v, duplicate %+v: want one job, the second skipped", ins, dup)
	}
	js := must(c.Fetch(ctx, 2*s, 10))(t)
	if len(js) != 1 || js[0].Attempt != 1 || js[0].State != target.Running || js[0].AttemptedBy[0] != "w1" {
		t.Fatalf("fetch: %+v", js)
	}
	rep := must(c.Report(ctx, 3*s, js[0], target.Report{Outcome: target.Errored}))(t)
	if !rep.Applied || rep.State != target.Available || rep.ScheduledAt != 4*s {
		t.Fatalf("report: %+v, want applied, available at 4s (1 s after the first error)", rep)
	}
	if js := must(c.Fetch(ctx, 3900*target.Millisecond, 10))(t); len(js) != 0 {
		t.Fatalf("fetched before the retry's time: %+v", js)
	}
	js = must(c.Fetch(ctx, 4*s, 10))(t)
	if len(js) != 1 || js[0].Attempt != 2 || js[0].Errors != 1 {
		t.Fatalf("second fetch: %+v", js)
	}
	if rep := must(c.Report(ctx, 5*s, js[0], target.Report{Outcome: target.Errored}))(t); rep.State != target.Retryable || rep.ScheduledAt != 21*s {
		t.Fatalf("second error: %+v, want retryable at 21s (16 s after)", rep)
	}
	sched := must(c.Schedule(ctx, 21*s))(t)
	if len(sched) != 1 || sched[0].State != target.Available {
		t.Fatalf("schedule: %+v", sched)
	}
}

// A worker frozen past the stuck horizon: the rescuer retries its job,
// another worker fetches it, the frozen one wakes and completes it in a
// transaction (River completes it: no attempt check), and the second
// worker's JobCompleteTx returns the same completed row without error.
func TestZombieCompletesAnotherAttempt(t *testing.T) {
	q := openTest(t)
	w1, w2 := q.Conn("w1"), q.Conn("w2")
	must(w1.Insert(ctx, 1*s, doc1))(t)
	held := must(w1.Fetch(ctx, 2*s, 1))(t)[0]
	stuck := must(w1.Stuck(ctx, 13*s))(t)
	if len(stuck) != 1 || stuck[0].ID != held.ID {
		t.Fatalf("stuck after 11 s: %+v", stuck)
	}
	res := must(w1.Rescue(ctx, 13*s, stuck))(t)
	if len(res) != 1 || !res[0].Applied || res[0].State != target.Retryable {
		t.Fatalf("rescue: %+v", res)
	}
	must(w1.Schedule(ctx, res[0].ScheduledAt))(t)
	second := must(w2.Fetch(ctx, res[0].ScheduledAt, 1))(t)[0]
	if second.Attempt != 2 {
		t.Fatalf("second fetch: %+v", second)
	}
	complete := func(c target.Conn, j target.Job, at target.Time) target.Job {
		tx := must(c.Begin(ctx))(t)
		must(tx.Effect(ctx, target.Effect{Job: j.ID, Attempt: j.Attempt, Key: "acme:d1:v1", Tenant: "acme", Doc: "d1", At: at}))(t)
		got := must(tx.Complete(ctx, at, j))(t)
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		return got
	}
	first := complete(w1, held, 30*s)
	again := complete(w2, second, 31*s)
	if first.State != target.Completed || again.State != target.Completed || first.Attempt != 2 || again.Attempt != 2 {
		t.Fatalf("zombie's completion %+v, second worker's %+v: want both completed at attempt 2", first, again)
	}
	snap := must(q.Snapshot(ctx))(t)
	if len(snap.Jobs) != 1 || snap.Jobs[0].State != target.Completed || len(snap.Effects) != 2 {
		t.Fatalf("snapshot: %+v, want one completed job and both effects", snap)
	}
}

// A rescue that finds its job no longer running leaves it (River 0.48's
// fix of #1302), and says so.
func TestRescueLeavesACompletedJob(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w1")
	must(c.Insert(ctx, 1*s, doc1))(t)
	j := must(c.Fetch(ctx, 2*s, 1))(t)[0]
	stuck := must(c.Stuck(ctx, 13*s))(t)
	if rep := must(c.Report(ctx, 13*s, j, target.Report{Outcome: target.Done}))(t); !rep.Applied || rep.State != target.Completed {
		t.Fatalf("report: %+v", rep)
	}
	res := must(c.Rescue(ctx, 13*s, stuck))(t)
	if len(res) != 1 || res[0].Applied {
		t.Fatalf("rescue of a completed job: %+v, want not applied", res)
	}
	if st := must(q.Snapshot(ctx))(t).Jobs[0].State; st != target.Completed {
		t.Fatalf("the job is %s after the rescue", st)
	}
}

// River's default retry policy, as declared: errors⁴ s ±10%, capped.
func TestDefaultBackoff(t *testing.T) {
	const ms = target.Millisecond
	year := 365 * 24 * 3600 * s
	for errors, want := range map[int][2]target.Time{0: {0, 0}, 1: {900 * ms, 1100 * ms}, 2: {14400 * ms, 17600 * ms},
		3: {72900 * ms, 89100 * ms}, 10_000: {year - year/10, year + year/10}} {
		if lo, hi := DefaultBackoff.Bound(errors); lo != want[0] || hi != want[1] {
			t.Errorf("DefaultBackoff.Bound(%d) = %d, %d; want %v", errors, lo, hi, want)
		}
	}
}

func TestOpenBadInput(t *testing.T) {
	if _, err := Open(ctx, "mysql", "", DefaultConfig()); err == nil {
		t.Error("unknown backend accepted")
	}
	cfg := DefaultConfig()
	cfg.RescueAfter = -1
	if _, err := Open(ctx, SQLite, "", cfg); err == nil {
		t.Error("negative rescue-after accepted")
	}
}
