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
