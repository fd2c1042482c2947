//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package rivertarget

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/target"
)

// A poll after an empty one, nothing written since and before the
// earliest available job's time, is judged empty without its SQL; at that
// time, or after any write, it runs and finds the job.
func TestIdlePollSkipped(t *testing.T) {
	q := openTest(t)
	db := q.db.(*sqliteDB)
	c := q.Conn("w1")
	must(c.Insert(ctx, 1*s, doc1))(t)
	js := must(c.Fetch(ctx, 2*s, 10))(t)
	rep := must(c.Report(ctx, 3*s, js[0], target.Report{Outcome: target.Errored}))(t)
	if rep.State != target.Available || rep.ScheduledAt != 4*s {
		t.Fatalf("report: %+v, want available at 4s", rep)
	}
	if js := must(c.Fetch(ctx, 3900*target.Millisecond, 10))(t); len(js) != 0 || db.idle.certain != 0 {
		t.Fatalf("first poll before 4s: %+v, %d judged empty; want nothing, run", js, db.idle.certain)
	}
	if js := must(c.Fetch(ctx, 3950*target.Millisecond, 10))(t); len(js) != 0 || db.idle.certain != 1 {
		t.Fatalf("second poll before 4s: %+v, %d judged empty; want nothing, judged", js, db.idle.certain)
	}
	if js := must(c.Fetch(ctx, 4*s, 10))(t); len(js) != 1 || db.idle.certain != 1 {
		t.Fatalf("poll at 4s: %+v, %d judged empty; want the job, run", js, db.idle.certain)
	}
	must(c.Report(ctx, 5*s, js0(t, c), target.Report{Outcome: target.Done}))(t)
	must(c.Fetch(ctx, 6*s, 10))(t) // empty: the cache is known again
	doc2 := doc1
	doc2.Args.Doc = "d2"
	must(c.Insert(ctx, 6*s, doc2))(t)
	if js := must(c.Fetch(ctx, 7*s, 10))(t); len(js) != 1 || db.idle.certain != 1 {
		t.Fatalf("poll after an insert: %+v, %d judged empty; want the job, run", js, db.idle.certain)
	}
}

// js0 is the job c holds (one).
func js0(t *testing.T, c target.Conn) target.Job {
	t.Helper()
	for _, r := range c.(*conn).held {
		j, err := jobOf(r)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	t.Fatal("no job held")
	return target.Job{}
}

// A judgement made stale behind the count's back (a job written, the
// count forged): the poll, skipped, misses the job; VerifyIdlePolls runs
// it and fails the call.
func TestIdlePollVerifyCatchesStale(t *testing.T) {
	q := openTest(t)
	db := q.db.(*sqliteDB)
	c := q.Conn("w1")
	if js := must(c.Fetch(ctx, 1*s, 10))(t); len(js) != 0 || !db.idle.known {
		t.Fatalf("poll of an empty queue: %+v, known %v", js, db.idle.known)
	}
	must(c.Insert(ctx, 1*s, doc1))(t)
	if err := db.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&db.idle.changes); err != nil {
		t.Fatal(err)
	}
	if js := must(c.Fetch(ctx, 2*s, 10))(t); len(js) != 0 {
		t.Fatalf("skipped poll: %+v, want nothing (the forged judgement)", js)
	}
	VerifyIdlePolls = true
	defer func() { VerifyIdlePolls = false }()
	_, err := c.Fetch(ctx, 2*s, 10)
	if err == nil || !strings.Contains(err.Error(), "certain to be empty found 1 jobs") {
		t.Fatalf("verified poll: %v, want the judgement refuted", err)
	}
}

// retryableAt makes doc1's job retryable (two errors: River's second retry
// delay, 16 s ± 10%, is past its scheduler interval) and returns its
// scheduled_at; the report is at 5s.
func retryableAt(t *testing.T, c target.Conn) target.Time {
	t.Helper()
	must(c.Insert(ctx, 1*s, doc1))(t)
	js := must(c.Fetch(ctx, 2*s, 10))(t)
	must(c.Report(ctx, 3*s, js[0], target.Report{Outcome: target.Errored}))(t)
	js = must(c.Fetch(ctx, 4*s, 10))(t)
	rep := must(c.Report(ctx, 5*s, js[0], target.Report{Outcome: target.Errored}))(t)
	if rep.State != target.Retryable || rep.ScheduledAt < 10*s {
		t.Fatalf("second error: %+v, want retryable past 10s", rep)
	}
	return rep.ScheduledAt
}

// A scheduler pass after one that moved nothing, nothing written since and
// before the earliest retryable job's time, is judged to move nothing
// without its SQL; at that time, or after any write, it runs and moves
// the job.
func TestIdleSchedulePassSkipped(t *testing.T) {
	q := openTest(t)
	db := q.db.(*sqliteDB)
	c := q.Conn("w1")
	due := retryableAt(t, c)
	if got := must(c.Schedule(ctx, 6*s))(t); len(got) != 0 || db.sched.certain != 0 {
		t.Fatalf("first pass before %s: %+v, %d judged; want nothing, run", target.FormatSeconds(due), got, db.sched.certain)
	}
	if got := must(c.Schedule(ctx, 7*s))(t); len(got) != 0 || db.sched.certain != 1 {
		t.Fatalf("second pass before %s: %+v, %d judged; want nothing, judged", target.FormatSeconds(due), got, db.sched.certain)
	}
	if got := must(c.Schedule(ctx, due-target.Millisecond))(t); len(got) != 0 || db.sched.certain != 2 {
		t.Fatalf("pass 1ms before %s: %+v, %d judged; want nothing, judged", target.FormatSeconds(due), got, db.sched.certain)
	}
	if got := must(c.Schedule(ctx, due))(t); len(got) != 1 || got[0].State != target.Available || db.sched.certain != 2 {
		t.Fatalf("pass at %s: %+v, %d judged; want the job made available, run", target.FormatSeconds(due), got, db.sched.certain)
	}
	if got := must(c.Schedule(ctx, due+s))(t); len(got) != 0 || db.sched.certain != 2 || !db.sched.known {
		t.Fatalf("pass after the move: %+v, %d judged, known %v; want nothing, run, known", got, db.sched.certain, db.sched.known)
	}
	// A write (here a fetch, which takes the job) moves the count: the
	// next pass runs.
	must(c.Fetch(ctx, due+2*s, 10))(t)
	if got := must(c.Schedule(ctx, due+3*s))(t); len(got) != 0 || db.sched.certain != 2 {
		t.Fatalf("pass after a write: %+v, %d judged; want nothing, run", got, db.sched.certain)
	}
	if got := must(c.Schedule(ctx, due+4*s))(t); len(got) != 0 || db.sched.certain != 3 {
		t.Fatalf("pass after that: %+v, %d judged; want nothing, judged", got, db.sched.certain)
	}
}

// A scheduler judgement made stale behind the count's back (a job made
// retryable, the count forged): the pass, skipped, misses the job;
// VerifyIdleSchedules runs it and fails the call.
func TestIdleScheduleVerifyCatchesStale(t *testing.T) {
	q := openTest(t)
	db := q.db.(*sqliteDB)
	c := q.Conn("w1")
	if got := must(c.Schedule(ctx, 1*s))(t); len(got) != 0 || !db.sched.known || db.sched.next != "" {
		t.Fatalf("pass over an empty table: %+v, known %v, next %q", got, db.sched.known, db.sched.next)
	}
	due := retryableAt(t, c)
	if err := db.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&db.sched.changes); err != nil {
		t.Fatal(err)
	}
	if got := must(c.Schedule(ctx, due))(t); len(got) != 0 {
		t.Fatalf("skipped pass: %+v, want nothing (the forged judgement)", got)
	}
	VerifyIdleSchedules = true
	defer func() { VerifyIdleSchedules = false }()
	_, err := c.Schedule(ctx, due)
	if err == nil || !strings.Contains(err.Error(), "certain to move nothing moved 1 jobs") {
		t.Fatalf("verified pass: %v, want the judgement refuted", err)
	}
}
