//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package rivertarget

import (
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/target"
)

const ms = target.Millisecond

// A poll before the earliest available job's time is judged empty without
// its SQL, the rows read again only once the count of changes moved; at
// that time, or after a write that makes a job due, it runs and finds the
// job.
func TestIdlePollSkipped(t *testing.T) {
	q := openTest(t)
	db := q.db.(*sqliteDB)
	c := q.Conn("w1")
	polls := func(at target.Time, jobs, judged int) []target.Job {
		t.Helper()
		js := must(c.Fetch(ctx, at, 10))(t)
		if len(js) != jobs || q.Skipped().Polls != judged {
			t.Fatalf("poll at %s: %d jobs, %d judged empty so far; want %d, %d", target.FormatSeconds(at), len(js), q.Skipped().Polls, jobs, judged)
		}
		return js
	}
	must(c.Insert(ctx, 1*s, doc1))(t)
	js := polls(2*s, 1, 0) // the job is due: run
	rep := must(c.Report(ctx, 3*s, js[0], target.Report{Outcome: target.Errored}))(t)
	if rep.State != target.Available || rep.ScheduledAt != 4*s {
		t.Fatalf("report: %+v, want available at 4s", rep)
	}
	polls(3900*ms, 0, 1) // the rows read again (the report wrote): due at 4s
	if !db.quiet.known || db.quiet.next[quietPoll] != sqliteTime(wall(4*s)) {
		t.Fatalf("after the judged poll: %+v, want known, next at 4s", db.quiet)
	}
	polls(3999*ms, 0, 2)  // nothing written since
	js = polls(4*s, 1, 2) // its time: run
	must(c.Report(ctx, 5*s, js[0], target.Report{Outcome: target.Done}))(t)
	polls(6*s, 0, 3) // no available job
	doc2 := doc1
	doc2.Args.Doc = "d2"
	must(c.Insert(ctx, 6*s, doc2))(t)
	polls(7*s, 1, 3) // the insert moved the count: read again, due
}

// A time stored as other than River's text (here a number, which SQLite
// orders before any text, so the job is due; as text it would read as
// far in the future) leaves the poll unjudged: it runs, and River's
// driver, which cannot read the number as a time, fails it.
func TestIdlePollUnsureOfOtherTimes(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w1")
	must(c.Insert(ctx, 1*s, doc1))(t)
	if err := q.db.run(ctx, "UPDATE river_job SET scheduled_at = 3000000000"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Fetch(ctx, 2*s, 10)
	if err == nil || !strings.Contains(err.Error(), `"scheduled_at"`) || q.Skipped().Polls != 0 {
		t.Fatalf("poll: %v, %d judged; want River's poll run, failing on the time", err, q.Skipped().Polls)
	}
}

// retryableAt makes doc1's job retryable (two errors: River's second retry
// delay, 16 s ± 10%, is past its scheduler interval) and returns its
// scheduled_at; the last call is at 5s.
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

// A scheduler pass before the earliest retryable job's time is judged to
// move nothing without its SQL; at that time it runs and moves the job;
// after a write the rows are read again.
func TestIdleSchedulePassSkipped(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w1")
	due := retryableAt(t, c)
	pass := func(at target.Time, moved, judged int) {
		t.Helper()
		got := must(c.Schedule(ctx, at))(t)
		if len(got) != moved || q.Skipped().Passes != judged {
			t.Fatalf("pass at %s (due %s): %+v, %d judged so far; want %d moved, %d judged", target.FormatSeconds(at), target.FormatSeconds(due), got, q.Skipped().Passes, moved, judged)
		}
		if moved > 0 && got[0].State != target.Available {
			t.Fatalf("pass at %s: %+v, want the job made available", target.FormatSeconds(at), got)
		}
	}
	pass(6*s, 0, 1)
	pass(7*s, 0, 2)
	pass(due-ms, 0, 3)
	pass(due, 1, 3)   // its time: run
	pass(due+s, 0, 4) // nothing scheduled or retryable left
	must(c.Fetch(ctx, due+2*s, 10))(t)
	pass(due+3*s, 0, 5) // a write: read again, still nothing
}

// A read of stuck jobs before the stuck horizon passes the earliest
// running job's attempt is judged empty; at the horizon too (River takes
// jobs attempted strictly before it); a millisecond past it, it runs and
// finds the job.
func TestIdleStuckReadSkipped(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w1")
	must(c.Insert(ctx, 1*s, doc1))(t)
	must(c.Fetch(ctx, 2*s, 10))(t)
	stuck := func(at target.Time, jobs, judged int) {
		t.Helper()
		js := must(c.Stuck(ctx, at))(t)
		if len(js) != jobs || q.Skipped().Stuck != judged {
			t.Fatalf("stuck at %s: %d jobs, %d judged so far; want %d, %d", target.FormatSeconds(at), len(js), q.Skipped().Stuck, jobs, judged)
		}
	}
	after := DefaultConfig().RescueAfter
	stuck(5*s, 0, 1)
	stuck(2*s+after, 0, 2)
	stuck(2*s+after+ms, 1, 2)
}

// A judgement made stale behind the count's back (a due job written, the
// count forged) skips a query that would have found the job; the query's
// verify switch runs it and fails the call.
func TestIdleVerifyCatchesStale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kind   quietKind
		verify *bool
		want   string
		// setup writes a due job after the empty table was judged; call
		// is the query, at a time the job is due.
		setup func(t *testing.T, c target.Conn) target.Time
		call  func(c target.Conn, at target.Time) (int, error)
	}{
		{"poll", quietPoll, &VerifyIdlePolls, "poll judged certain to be empty found 1 jobs",
			func(t *testing.T, c target.Conn) target.Time { must(c.Insert(ctx, 1*s, doc1))(t); return 2 * s },
			func(c target.Conn, at target.Time) (int, error) { js, err := c.Fetch(ctx, at, 10); return len(js), err }},
		{"schedule", quietSchedule, &VerifyIdleSchedules, "pass judged certain to move nothing moved 1 jobs",
			retryableAt,
			func(c target.Conn, at target.Time) (int, error) {
				got, err := c.Schedule(ctx, at)
				return len(got), err
			}},
		{"stuck", quietStuck, &VerifyIdleStuck, "stuck jobs judged certain to find none found 1 jobs",
			func(t *testing.T, c target.Conn) target.Time {
				must(c.Insert(ctx, 1*s, doc1))(t)
				must(c.Fetch(ctx, 2*s, 10))(t)
				return 3*s + DefaultConfig().RescueAfter
			},
			func(c target.Conn, at target.Time) (int, error) { js, err := c.Stuck(ctx, at); return len(js), err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := openTest(t)
			db := q.db.(*sqliteDB)
			c := q.Conn("w1")
			if n, err := tc.call(c, 0); err != nil || n != 0 || !db.quiet.known || db.quiet.next[tc.kind] != "" {
				t.Fatalf("over an empty table: %d jobs, %v, %+v", n, err, db.quiet)
			}
			at := tc.setup(t, c)
			if err := db.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&db.quiet.changes); err != nil {
				t.Fatal(err)
			}
			if n, err := tc.call(c, at); err != nil || n != 0 {
				t.Fatalf("skipped: %d jobs, %v; want none (the forged judgement)", n, err)
			}
			*tc.verify = true
			defer func() { *tc.verify = false }()
			if _, err := tc.call(c, at); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("verified: %v, want the judgement refuted", err)
			}
		})
	}
}

// sqliteTime writes what River's driver writes (Format's layout, rounded
// to the millisecond in UTC), for times across the years, a round up to
// the next second, and years Format writes otherwise.
func TestSQLiteTime(t *testing.T) {
	at := func(y int, ns int) time.Time {
		return time.Date(y, 12, 31, 23, 59, 59, ns, time.FixedZone("x", 5*3600))
	}
	for _, tm := range []time.Time{wall(0), wall(4 * s), wall(1234567 * ms), at(1, 0), at(999, 1), at(2026, 999_499_999),
		at(2026, 999_500_000), at(9999, 999_600_000), at(10000, 0), at(-1, 0), time.Unix(0, 0)} {
		want := tm.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
		if got := sqliteTime(tm); got != want {
			t.Errorf("%v: %q, want %q", tm, got, want)
		}
	}
}

// The count read through SQLite's C API is SELECT total_changes()'s, as
// rows are written and rolled back.
func TestChangeCounter(t *testing.T) {
	q := openTest(t)
	db := q.db.(*sqliteDB)
	c := q.Conn("w1")
	check := func(when string) {
		t.Helper()
		var want int64
		if err := db.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := must(db.changes.total(ctx, db.db))(t); got != want || want == 0 && when != "open" {
			t.Fatalf("%s: %d, want %d (SELECT total_changes())", when, got, want)
		}
	}
	check("open")
	must(c.Insert(ctx, 1*s, doc1))(t)
	check("after an insert")
	tx := must(c.Begin(ctx))(t)
	must(tx.Effect(ctx, target.Effect{Job: 1, Attempt: 1, Worker: "w1", Tenant: "acme", Doc: "d1"}))(t)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a rollback")
}
