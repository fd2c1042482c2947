package crash

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/boundary"
)

// A Killer dies at the nth crossing of its point only (of its statement
// boundary, for an inside point), writes the kill line first with the
// crossing's line's own fields, and never fires twice.
func TestKillerNthCrossing(t *testing.T) {
	var died []boundary.Boundary
	h := &History[fakeLine]{Proc: "w1"}
	k := &Killer[fakeLine]{Assignment: Assignment{At: boundary.InsideCommitAfterStmt, Nth: 2, Stmt: 2}, Hist: h,
		Kill: func(p boundary.Boundary) { died = append(died, p) }}
	k.Cross(boundary.AfterLease, fakeLine{Round: 1})
	for round := 1; round <= 3; round++ {
		for n := 1; n <= 2; n++ {
			k.CrossAt(boundary.InsideCommitAfterStmt, n, fakeLine{Round: round})
		}
	}
	if !slices.Equal(died, []boundary.Boundary{boundary.InsideCommitAfterStmt}) {
		t.Fatalf("died at %v, want once inside the commit", died)
	}
	es := h.Entries()
	if len(es) != 1 || es[0].Op != OpKill || es[0].Point != "inside_commit_after_stmt" || es[0].Stmt != 2 || es[0].Round != 2 ||
		es[0].Proc != "w1" || es[0].T1 == 0 {
		t.Errorf("history %+v, want one kill line of round 2 after statement 2", es)
	}
	k.Disarm() // fired: no armed line
	if ms := h.Marks(); len(ms) != 0 {
		t.Errorf("armed line %+v after the kill", ms)
	}
	var none *Killer[fakeLine]
	none.Cross(boundary.AfterLease, fakeLine{}) // nil never kills
	none.Disarm()
	(&Killer[fakeLine]{}).Cross(boundary.AfterLease, fakeLine{})
}

// A Killer stopped before its point writes one armed line: how often it
// crossed, how many runs of its operation ended, the most boundaries one
// passed.
func TestKillerDisarm(t *testing.T) {
	h := &History[fakeLine]{Proc: "w2"}
	k := &Killer[fakeLine]{Assignment: Assignment{At: boundary.InsideCommitAfterStmt, Nth: 1, Stmt: 2}, Hist: h,
		Kill: func(boundary.Boundary) { t.Fatal("killed") }}
	for range 4 {
		k.CrossAt(boundary.InsideCommitAfterStmt, 1, fakeLine{})
		k.Through(boundary.InsideCommitAfterStmt, 1)
	}
	k.Through(boundary.AfterLease, 7) // another point's operation
	k.Disarm()
	k.Disarm()
	ms := h.Marks()
	if len(ms) != 1 || ms[0] != (Mark{Op: OpArmed, Proc: "w2", Point: "inside_commit_after_stmt", Stmt: 1, Ops: 4, T0: ms[0].T0, T1: ms[0].T1}) || ms[0].T0 == 0 {
		t.Errorf("armed lines %+v, want one: 4 runs, at most 1 boundary, no crossing at statement 2", ms)
	}
}

// An assignment's flags parse back; bad ones are one-line errors naming
// what is wrong.
func TestAssignmentFlags(t *testing.T) {
	for _, a := range []Assignment{{}, {At: boundary.AfterLease, Nth: 3}, {At: boundary.InsideCommitAfterStmt, Nth: 1, Stmt: 2}} {
		var got Assignment
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		got.Flags(fs)
		if err := fs.Parse(a.Args()); err != nil {
			t.Fatalf("%q: %v", a.Args(), err)
		}
		if a.At == boundary.None {
			a.Nth = 1 // the flag's default
		}
		if got != a || got.Check(fakeWorker, fakeStmts) != nil {
			t.Errorf("%q parsed back as %+v (check %v)", a.Args(), got, got.Check(fakeWorker, fakeStmts))
		}
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	(&Assignment{}).Flags(fs)
	if err := fs.Parse([]string{"-kill-at", "nowhere"}); err == nil || !strings.Contains(err.Error(), `unknown kill point "nowhere"`) {
		t.Errorf("-kill-at nowhere: %v", err)
	}
	for a, want := range map[Assignment]string{
		{At: boundary.RelayAfterClaim, Nth: 1}:                 "fake worker has no boundary relay_after_claim",
		{At: boundary.AfterLease, Nth: 0}:                      "-kill-nth must be >= 1",
		{At: boundary.AfterLease, Nth: 1, Stmt: 1}:             "0 unless -kill-at is an inside_*_after_stmt point",
		{At: boundary.InsideCommitAfterStmt, Nth: 1, Stmt: 3}:  "-kill-stmt 3 is past the 2 statement boundaries",
		{At: boundary.InsideCommitAfterStmt, Nth: 1, Stmt: -1}: "-kill-stmt must be >= 0",
	} {
		err := a.Check(fakeWorker, fakeStmts)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line with %q", a, err, want)
		}
	}
}

// Histories read back in file name order, a torn last line skipped; a
// line written as a workload's type reads back as a Mark.
func TestReadHistoriesTornLine(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"w1", "w0"} {
		h, err := OpenHistory[fakeLine](filepath.Join(dir, name+".jsonl"), name, "test")
		if err != nil {
			t.Fatal(err)
		}
		h.Write(fakeLine{Op: "round", Round: 1})
		h.Write(fakeLine{Op: "round", Round: 2}.Marked(Mark{Op: OpKill, Point: "after_lease", Stmt: 0, T0: 5, T1: 6}))
		h.Close()
	}
	appendRaw(t, filepath.Join(dir, "w1.jsonl"), `{"op":"round","proc":"w1","rou`)
	ls, err := ReadHistories[fakeLine](dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.Proc+":"+l.Op)
	}
	if !slices.Equal(got, []string{"w0:round", "w0:kill", "w1:round", "w1:kill"}) || ls[1].Round != 2 {
		t.Errorf("read %v", got)
	}
	ms, err := ReadHistory[Mark](filepath.Join(dir, "w0.jsonl"))
	if err != nil || len(ms) != 2 || ms[1] != (Mark{Op: OpKill, Proc: "w0", Point: "after_lease", T0: 5, T1: 6}) {
		t.Errorf("as marks: %+v, %v", ms, err)
	}
}
