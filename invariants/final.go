package invariants

import (
	"slices"

	"github.com/durasim/durasim/model"
)

// Final is the end-of-run state the final checks read. [FinalOf] builds it
// from a model.System; fixtures may build it by hand.
type Final struct {
	Jobs    []model.Job // may be partial: a job it omits is judged by its last state in the history
	Rows    []model.OutboxRow
	Effects []model.Effect
	DLQ     []model.Envelope
	Audit   []model.AuditEntry
}

// FinalOf copies the final state of s.
func FinalOf(s *model.System) Final {
	f := Final{
		Jobs:    make([]model.Job, 0, s.Jobs()),
		Rows:    make([]model.OutboxRow, 0, s.Rows()),
		Effects: s.Effects(), // already a copy
		DLQ:     s.DLQEntries(),
		Audit:   slices.Clone(s.Audit()),
	}
	s.EachJob(func(j *model.Job) { f.Jobs = append(f.Jobs, *j) })
	for id := model.EventID(1); int(id) <= s.Rows(); id++ {
		if r, ok := s.Row(id); ok {
			f.Rows = append(f.Rows, r)
		}
	}
	return f
}

// finalView indexes a Final, merged with the history, for the final
// checks.
type finalView struct {
	f       Final
	state   []model.State // by job id: from Final.Jobs, else from the history
	known   []bool        // the job was enqueued or is listed in Final.Jobs
	rows    []bool        // by event id: Final.Rows holds it
	effects [][model.StageDone]int32
}

func (s *Suite) view(f Final) *finalView {
	n := len(s.jobs)
	for _, j := range f.Jobs {
		n = max(n, int(j.ID)+1)
	}
	for _, e := range f.Effects {
		n = max(n, int(e.Job)+1)
	}
	v := &finalView{f: f, state: make([]model.State, n), known: make([]bool, n), effects: make([][model.StageDone]int32, n)}
	for id := range s.jobs {
		v.state[id], v.known[id] = s.jobs[id].state, s.jobs[id].enqueued
	}
	for _, j := range f.Jobs {
		if j.ID > 0 {
			v.state[j.ID], v.known[j.ID] = j.State, true
		}
	}
	for _, e := range f.Effects {
		if e.Job > 0 && e.Stage < model.StageDone {
			v.effects[e.Job][e.Stage]++
		}
	}
	for _, r := range f.Rows {
		if r.EventID > 0 {
			v.rows = growTo(v.rows, int(r.EventID)+1)
			v.rows[r.EventID] = true
		}
	}
	return v
}

// row reports whether Final.Rows holds event id.
func (v *finalView) row(id model.EventID) bool {
	return id > 0 && id < model.EventID(len(v.rows)) && v.rows[id]
}

func growTo(b []bool, n int) []bool {
	if n <= len(b) {
		return b
	}
	return append(b, make([]bool, n-len(b))...)
}
