package crash

import (
	"math/rand/v2"
	"slices"

	"github.com/durasim/durasim/boundary"
)

// handout hands kill points out to new children and keeps their books:
// kills per point (and per statement boundary), children waiting at each
// point, the total. Not safe for concurrent use: the supervisor holds
// its lock.
type handout struct {
	roles    []Role
	target   int // Settings.Kills
	rng      *rand.Rand
	kills    map[boundary.Boundary]int
	stmts    map[boundary.Boundary]map[int]int
	assigned map[boundary.Boundary]int // live children waiting to die at each point
	total    int
}

func newHandout(roles []Role, target int, rng *rand.Rand) *handout {
	return &handout{roles: roles, target: target, rng: rng, kills: map[boundary.Boundary]int{},
		stmts: map[boundary.Boundary]map[int]int{}, assigned: map[boundary.Boundary]int{}}
}

// points lists the kill points of the run: those of every role with a
// slot that gets kill points, in role order, each once.
func (h *handout) points() []boundary.Boundary {
	var pts []boundary.Boundary
	for _, r := range h.roles {
		if !r.killable() {
			continue
		}
		for _, p := range r.Points.List() {
			if !slices.Contains(pts, p) {
				pts = append(pts, p)
			}
		}
	}
	return pts
}

// everyPoint is whether the goal covers every point: Kills is not below
// their number.
func (h *handout) everyPoint() bool { return h.target >= len(h.points()) }

// unkilled lists the run's points without a kill yet.
func (h *handout) unkilled() []boundary.Boundary {
	return slices.DeleteFunc(h.points(), func(p boundary.Boundary) bool { return h.kills[p] > 0 })
}

// met: Kills kills landed and, unless Kills is below their number, each
// point had one. A rare point (the operator's, crossed once per dead
// job) is not left out because the frequent ones reached Kills first.
func (h *handout) met() bool {
	return h.total >= h.target && (!h.everyPoint() || len(h.unkilled()) == 0)
}

// choose is the kill point of a new child of role r: a point no kill has
// reached yet and no live child is waiting at, if any (and the goal
// covers every point), at its first crossing, so that every point is
// covered early; else, while fewer than Kills kills landed, any of the
// role's points at one of its first MaxNth crossings; else none (a
// workload with goals of its own runs on past its kills). The children
// still waiting when the kills are in die later: a run ends with a few
// kills more than Kills, rather than wait for the slowest of them. An
// inside point gets a statement boundary at random.
func (h *handout) choose(r Role) Assignment {
	pts := r.Points.List()
	var fresh []boundary.Boundary
	for _, p := range pts {
		if h.kills[p] == 0 && h.assigned[p] == 0 {
			fresh = append(fresh, p)
		}
	}
	var a Assignment
	switch {
	case len(fresh) > 0 && h.everyPoint():
		a = Assignment{At: fresh[h.rng.IntN(len(fresh))], Nth: 1}
	case len(pts) > 0 && h.total < h.target:
		a = Assignment{At: pts[h.rng.IntN(len(pts))], Nth: 1 + h.rng.IntN(r.maxNth())}
	default:
		return Assignment{}
	}
	if n := r.Stmts[a.At]; n > 0 {
		a.Stmt = 1 + h.rng.IntN(n)
	}
	h.assigned[a.At]++
	return a
}

// killed books a's kill, which landed after stmt statements.
func (h *handout) killed(a Assignment, stmt int) {
	h.kills[a.At]++
	if a.Stmt > 0 {
		if h.stmts[a.At] == nil {
			h.stmts[a.At] = map[int]int{}
		}
		h.stmts[a.At][stmt]++
	}
	h.assigned[a.At]--
	h.total++
}

// unassign books the end of a child that did not die at its point.
func (h *handout) unassign(a Assignment) {
	if a.At != boundary.None {
		h.assigned[a.At]--
	}
}
