package crash

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/durasim/durasim/boundary"
)

var handoutRelay = boundary.NewSet("relay", boundary.RelayAfterClaim, boundary.RelayAfterPublishBeforeMark, boundary.RelayAfterMarkBeforePublish)

func handoutRoles() []Role {
	return []Role{
		{Name: "worker", Slots: 3, Points: fakeWorker, Stmts: fakeStmts},
		{Name: "relay", Slots: 1, Points: handoutRelay, MaxNth: 12},
		{Name: "steady", Slots: 2, Steady: 2, Points: boundary.NewSet("steady", boundary.AfterFetch)},
	}
}

// Fresh points first: while the goal covers every point, the first
// children of a role get, at their first crossing, points with no kill
// and nobody waiting; a point handed out again waits for a later
// crossing, within MaxNth; inside points get a statement boundary within
// their declared count; once Kills kills landed and every point had its
// kill, no point. Roles whose slots are all steady
// add no point to the goal.
func TestHandoutFreshFirstThenAny(t *testing.T) {
	roles := handoutRoles()
	h := newHandout(roles, 30, rand.New(rand.NewPCG(1, 2)))
	if pts := h.points(); len(pts) != 3+3 || slices.Contains(pts, boundary.AfterFetch) {
		t.Fatalf("points %v: want the worker's 3 and the relay's 3, not the steady role's", pts)
	}
	var first []boundary.Boundary
	for range 3 {
		a := h.choose(roles[0])
		if a.Nth != 1 || slices.Contains(first, a.At) || !fakeWorker.Has(a.At) {
			t.Fatalf("fresh hand-out %v after %v", a, first)
		}
		if n := fakeStmts[a.At]; n > 0 && (a.Stmt < 1 || a.Stmt > n) || n == 0 && a.Stmt != 0 {
			t.Errorf("%v: statement out of its %d boundaries", a, n)
		}
		first = append(first, a.At)
	}
	// Every worker point waited for: the next worker gets any point.
	fourth := h.choose(roles[0])
	if fourth.At == boundary.None || fourth.Nth < 1 || fourth.Nth > 3 {
		t.Errorf("worker's 4th hand-out %v, want any point at crossing 1 to 3", fourth)
	}
	seen := map[int]bool{}
	for range 200 {
		a := h.choose(roles[1])
		if a.At == boundary.None {
			break
		}
		seen[a.Nth] = true
		if a.Nth > 12 {
			t.Fatalf("relay's %v past MaxNth 12", a)
		}
		h.killed(a, a.Stmt)
	}
	if len(seen) < 4 {
		t.Errorf("relay's crossings %v: want several of 1 to 12", seen)
	}
	for _, p := range handoutRelay.List() {
		if h.kills[p] == 0 {
			t.Errorf("relay point %s never killed", p)
		}
	}
	if h.met() {
		t.Errorf("met with the workers' points waiting: %d kills", h.total)
	}
	// The waiting workers die at their points: the goals are met, and
	// nothing more is handed out.
	for _, p := range first {
		h.killed(Assignment{At: p, Stmt: fakeStmts[p]}, fakeStmts[p])
	}
	if !h.met() {
		t.Errorf("not met after %d kills of 30, every point killed (assigned %v)", h.total, h.assigned)
	}
	h.killed(fourth, fourth.Stmt) // a child still waiting dies later: one kill more
	if h.total != 34 || h.assigned[fourth.At] != 0 {
		t.Errorf("%d kills, assigned %v; want 34, none waiting", h.total, h.assigned)
	}
	if a := h.choose(roles[0]); a.At != boundary.None {
		t.Errorf("hand-out %v after the goals were met", a)
	}
	byStmt := 0
	for _, n := range h.stmts[boundary.InsideCommitAfterStmt] {
		byStmt += n
	}
	if byStmt != h.kills[boundary.InsideCommitAfterStmt] || byStmt == 0 {
		t.Errorf("kills inside the commit %d, by statement %v", h.kills[boundary.InsideCommitAfterStmt], h.stmts[boundary.InsideCommitAfterStmt])
	}
}

// With Kills below the number of points, no point is owed a kill: the
// hand-out draws any point (not first those with no kill) while kills
// are wanted, and the goal is the count alone.
func TestHandoutFewKills(t *testing.T) {
	roles := handoutRoles()
	h := newHandout(roles, 2, rand.New(rand.NewPCG(3, 4)))
	nths := map[int]bool{}
	for range 20 {
		a := h.choose(roles[1])
		nths[a.Nth] = true
		h.unassign(a)
	}
	if len(nths) < 3 {
		t.Errorf("crossings %v: want any of 1 to 12, not the fresh points' first", nths)
	}
	a, b := h.choose(roles[1]), h.choose(roles[1])
	h.killed(a, 0)
	h.killed(b, 0)
	if c := h.choose(roles[0]); a.At == boundary.None || b.At == boundary.None || c.At != boundary.None {
		t.Fatalf("hand-outs %v, %v, then after their kills %v: want two points, then none", a, b, c)
	}
	if !h.met() || len(h.unkilled()) < 4 {
		t.Errorf("met %v with %d points unkilled", h.met(), len(h.unkilled()))
	}
}

// Every point is covered by a run of random deaths: children killed at
// their points in any order, a fresh point is handed out to the next
// child of its role until none is left.
func TestHandoutCoversEveryPoint(t *testing.T) {
	roles := handoutRoles()
	for seed := range uint64(50) {
		h := newHandout(roles, 40, rand.New(rand.NewPCG(seed, 9)))
		rng := rand.New(rand.NewPCG(seed, 10))
		var live []Assignment
		for step := 0; !h.met() && step < 1000; step++ {
			if len(live) < 4 {
				if a := h.choose(roles[rng.IntN(2)]); a.At != boundary.None {
					live = append(live, a)
					continue
				}
			}
			if len(live) == 0 {
				break
			}
			i := rng.IntN(len(live))
			h.killed(live[i], live[i].Stmt)
			live = slices.Delete(live, i, i+1)
		}
		if !h.met() || len(h.unkilled()) > 0 {
			t.Errorf("seed %d: %d kills, unkilled %v", seed, h.total, h.unkilled())
		}
	}
}
