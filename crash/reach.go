package crash

import (
	"fmt"
	"slices"
)

// unreached is the verdict on a child stopped for not reaching its kill
// point within Settings.Reach: which point, and why, from the armed line
// it wrote as it stopped.
func (s *Supervisor) unreached(c *child, marks []Mark) error {
	head := fmt.Sprintf("kill point %s was not reached by %s within -reach %v awake", c.Kill, c.Name, s.cfg.Reach)
	i := slices.IndexFunc(marks, func(m Mark) bool { return m.Op == OpArmed && m.Point == c.Kill.At.String() })
	if i < 0 {
		return fmt.Errorf("%s, and it did not stop to say how far it got", head)
	}
	return fmt.Errorf("%s: %s", head, s.why(c.Kill, marks[i]))
}

// why reads an armed line: an inside point whose operation ran to its
// end, every time short of the point's statement boundary, cannot be
// reached on this store; any other point was crossed too rarely.
func (s *Supervisor) why(a Assignment, m Mark) string {
	declared := 0
	for _, r := range s.cfg.Roles {
		declared = max(declared, r.Stmts[a.At])
	}
	switch {
	case a.Stmt > 0 && m.Ops > 0 && m.Stmt < a.Stmt:
		return fmt.Sprintf("its operation ran to its end %d times and passed at most %d statement boundaries, fewer than the %d the point declares: this store runs fewer statements there than %s expects",
			m.Ops, m.Stmt, declared, a.At)
	case m.Crossed == 0:
		return "the child never crossed it"
	}
	return fmt.Sprintf("the child crossed it %d of the %d times it waited for", m.Crossed, a.Nth)
}
