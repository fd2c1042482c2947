package rivertarget

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

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

// Rules declares what River's SQL does: each rule, driven through the
// seam, agrees with the declaration.
func TestRulesAreRiversBehaviour(t *testing.T) {
	q := openTest(t)
	rules := Rules()
	c := q.Conn("w1")
	now := target.Time(0)
	at := func() target.Time { now += s; return now }
	req := func(name string, max int) target.InsertReq {
		return target.InsertReq{Kind: "doc", Args: target.Args{Tenant: "acme", Doc: name, Version: 1}, MaxAttempts: max, Unique: true}
	}
	in := func(name string, max int) target.JobID { return must(c.Insert(ctx, at(), req(name, max)))(t).Job }
	fetch := func(id target.JobID) target.Job {
		t.Helper()
		for _, j := range must(c.Fetch(ctx, at(), 100))(t) {
			if j.ID == id {
				return j
			}
		}
		t.Fatalf("j%d not fetched", id)
		return target.Job{}
	}
	report := func(j target.Job, o target.Outcome, snooze target.Time) target.Reported {
		t.Helper()
		return must(c.Report(ctx, at(), j, target.Report{Outcome: o, Snooze: snooze}))(t)
	}

	// A snooze's attempt; a cancel's error; a retry at the last attempt.
	j := fetch(in("scheduled", 3))
	if rep := report(j, target.Snooze, 30*s); rep.State != target.Scheduled || (rep.Attempt == j.Attempt-1) != (rules.Snooze == target.AttemptGivenBack) {
		t.Errorf("snooze of attempt %d: %+v; the rules say %v", j.Attempt, rep, rules.Snooze)
	}
	id := in("cancel-retried", 3)
	report(fetch(id), target.Cancel, 0)
	must(c.Retry(ctx, at(), id))(t)
	if j := fetch(id); (j.Errors == 1) != rules.CancelCountsError {
		t.Errorf("after a cancel and a retry: %d errors; the rules say a cancel counts one: %v", j.Errors, rules.CancelCountsError)
	}
	id = in("last", 1)
	report(fetch(id), target.Errored, 0)
	if j := must(c.Retry(ctx, at(), id))(t); (j.MaxAttempts == 2) != (rules.Retry == target.RetryAddsAttempt) || j.Attempt != 1 {
		t.Errorf("a retry at the last attempt: attempt %d of %d; the rules say %v", j.Attempt, j.MaxAttempts, rules.Retry)
	}

	// A rescue records an error and keeps the attempt; at the last
	// attempt it discards; a transactional completion of the rescued job
	// returns its row as it is.
	for _, max := range []int{2, 1} {
		id := in(fmt.Sprintf("stuck%d", max), max)
		held := fetch(id)
		now += 20 * s
		var got *target.Rescued
		for _, r := range must(c.Rescue(ctx, now, must(c.Stuck(ctx, now))(t)))(t) {
			if r.Job == id {
				got = &r
			}
		}
		want := target.Retryable
		if held.Attempt >= max && rules.Rescue.Attempt == target.AttemptCounted {
			want = target.Discarded
		}
		if got == nil || got.State != want {
			t.Fatalf("rescue of attempt %d of %d: %+v, want %s", held.Attempt, max, got, want)
		}
		tx := must(c.Begin(ctx))(t)
		row, err := tx.Complete(ctx, at(), held)
		_ = tx.Rollback(ctx)
		if err != nil || row.State != want || rules.CompleteNotRunning != target.CompletionReturnsRow {
			t.Errorf("completing the rescued job: %+v, %v; the rules say %v", row, err, rules.CompleteNotRunning)
		}
		if want == target.Retryable {
			now = max64(now, got.ScheduledAt)
			must(c.Schedule(ctx, now))(t)
			if j := fetch(id); j.Attempt != held.Attempt+1 || (j.Errors == 1) != rules.Rescue.CountsError {
				t.Errorf("after a rescue: attempt %d, %d errors; the rules say %+v", j.Attempt, j.Errors, rules.Rescue)
			}
		}
	}

	// Unique states: a job in each state the seam reaches, then its args
	// inserted again.
	in("available", 3)
	fetch(in("running", 3))
	id = in("retryable", 3)
	report(fetch(id), target.Errored, 0) // due in 1 s: available at once
	if rep := report(fetch(id), target.Errored, 0); rep.State != target.Retryable {
		t.Fatalf("second error: %+v", rep)
	}
	report(fetch(in("completed", 3)), target.Done, 0)
	report(fetch(in("discarded", 1)), target.Errored, 0)
	report(fetch(in("cancelled", 3)), target.Cancel, 0)
	for _, st := range []target.State{target.Available, target.Running, target.Retryable, target.Scheduled, target.Completed, target.Discarded,
		target.Cancelled} {
		ins := must(c.Insert(ctx, at(), req(st.String(), 3)))(t)
		if ins.Skipped != rules.Unique(st) {
			t.Errorf("a unique insert beside a %s job: skipped %v; the rules say %s holds its args: %v", st, ins.Skipped, st, rules.Unique(st))
		}
	}
}

func max64(a, b target.Time) target.Time {
	if a > b {
		return a
	}
	return b
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

// The adapter runs River's own code: its executor records the handler's
// error as River's AttemptError (the attempt's start, the error's text)
// and counts a snooze in the job's metadata (river's "snoozes"), neither
// of which durasim writes; a report of a job the connection did not fetch
// is an error, not a guess.
func TestRiversOwnExecutor(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w1")
	id := must(c.Insert(ctx, 1*s, doc1))(t).Job
	j := must(c.Fetch(ctx, 2*s, 1))(t)[0]
	must(c.Report(ctx, 3*s, j, target.Report{Outcome: target.Errored}))(t)
	r := must(q.db.exec().JobGetByID(ctx, &riverdriver.JobGetByIDParams{ID: int64(id)}))(t)
	if len(r.Errors) != 1 || r.Errors[0].Error != errHandler.Error() || virt(r.Errors[0].At) != 3*s || r.Errors[0].Attempt != 1 {
		t.Fatalf("errors after a handler error: %+v", r.Errors)
	}
	j = must(c.Fetch(ctx, 4*s, 1))(t)[0]
	rep := must(c.Report(ctx, 5*s, j, target.Report{Outcome: target.Snooze, Snooze: 30 * s}))(t)
	if rep.State != target.Scheduled || rep.ScheduledAt != 35*s || rep.Attempt != 1 {
		t.Fatalf("snooze: %+v", rep)
	}
	r = must(q.db.exec().JobGetByID(ctx, &riverdriver.JobGetByIDParams{ID: int64(id)}))(t)
	if !strings.Contains(string(r.Metadata), `"snoozes":1`) {
		t.Fatalf("metadata after a snooze: %s", r.Metadata)
	}
	if _, err := c.Report(ctx, 6*s, j, target.Report{Outcome: target.Done}); err == nil {
		t.Fatal("a second report of a job no longer held was accepted")
	}
	if _, err := q.Conn("w2").Report(ctx, 6*s, j, target.Report{Outcome: target.Done}); err == nil {
		t.Fatal("a report by a connection that never fetched the job was accepted")
	}
}

// River's own DefaultClientRetryPolicy, which the sweep cannot run (its
// jitter comes from math/rand/v2's global generator), stays within the
// bounds the seeded policy draws from (DefaultBackoff).
func TestSeededPolicyMatchesRivers(t *testing.T) {
	now := time.Now()
	p := &river.DefaultClientRetryPolicy{}
	for errors := 0; errors < 12; errors++ {
		lo, hi := DefaultBackoff.Bound(errors + 1)
		for range 200 {
			d := target.Time(p.NextRetry(&rivertype.JobRow{Errors: make([]rivertype.AttemptError, errors)}).Sub(now))
			// River reads its own clock after now: allow it a second.
			if d < lo-s || d > hi+s {
				t.Fatalf("River's retry after %d errors in %s, outside [%s, %s]", errors, target.FormatSeconds(d), target.FormatSeconds(lo),
					target.FormatSeconds(hi))
			}
		}
	}
}

func TestSchedulerIntervalIsRivers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SchedulerInterval = s
	if _, err := Open(ctx, SQLite, "", cfg); err == nil || !strings.Contains(err.Error(), "River's default") {
		t.Errorf("a scheduler interval River's executor does not use: %v", err)
	}
}
