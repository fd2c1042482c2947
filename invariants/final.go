package invariants

import (
	"slices"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
)

// Final is the end-of-run state the final checks read: the durable state
// read back. [FinalOf] builds it from a model.System; fixtures may build it
// by hand.
type Final struct {
	Jobs     []model.Job // may be partial: a job it omits is judged by its last state in the history
	Rows     []model.OutboxRow
	Effects  []model.Effect
	Messages []model.Message // nil: not read back (fixtures)
	DLQ      []model.Envelope
	Audit    []model.AuditEntry
	// Cancelled is the queue's list of the jobs it cancelled, in the order
	// it cancelled them (what an operator browses); nil: not read back.
	Cancelled []model.JobID
	// Quarantined is the queue's list of the jobs whose DLQ entry awaits
	// an operator's decision (what an operator browses); nil: not read
	// back.
	Quarantined []model.JobID
	// Results is the outbox's results table, ordered by event id; nil:
	// not read back.
	Results []model.Result
	// LastFence is the queue's fencing counter, read back when FenceRead.
	LastFence uint64
	FenceRead bool
	End       model.Time // when the run ended
	// Full says every job, row and message is listed with every field the
	// system stores, so the read-back compares them all with the history;
	// otherwise only the jobs' states are compared.
	Full bool
	// EffectsInOrder says Effects lists every applied effect in the order
	// applied, each with its time, so each is compared with its apply in
	// the history (hand-built finals list them by job).
	EffectsInOrder bool

	// sys, set by FinalOf, stands for Jobs, Rows and Messages: the checks
	// read them from the system in place, since copying every job and row
	// of a large run would double its memory at the very end.
	sys *model.System
}

// FinalOf returns the final state of s. The effects, the DLQ and the
// audit log are copied; jobs, rows and messages are read from s by
// [Suite.Finish], so s must not change until Finish has returned.
func FinalOf(s *model.System) Final { return finalInto(s, nil, nil, nil, nil) }

// FinalOf is the package's FinalOf with the effects and the cancelled
// jobs read into buffers the suite keeps from seed to seed: the Final is
// valid until the suite's next FinalOf (Finish keeps nothing of it).
func (su *Suite) FinalOf(s *model.System) Final {
	f := finalInto(s, su.finalEffects[:0], su.finalCancelled[:0], su.finalQuarantined[:0], su.finalResults[:0])
	su.finalEffects, su.finalCancelled, su.finalQuarantined, su.finalResults = f.Effects, f.Cancelled, f.Quarantined, f.Results
	return f
}

// finalInto reads s's final state, appending the effects and the
// cancelled jobs, the quarantined ones and the results to the buffers given.
func finalInto(s *model.System, effects []model.Effect, cancelled, quarantined []model.JobID, results []model.Result) Final {
	f := Final{Effects: s.AppendEffects(effects), DLQ: s.DLQEntries(), Audit: s.Audit(), End: s.Now(), Full: true, EffectsInOrder: true, sys: s} // copies
	if f.Effects == nil {
		f.Effects = []model.Effect{}
	}
	for i := range s.CancelledJobs() {
		cancelled = append(cancelled, s.CancelledJob(i))
	}
	if f.Cancelled = cancelled; f.Cancelled == nil {
		f.Cancelled = []model.JobID{}
	}
	if f.Quarantined = s.AppendQuarantined(quarantined); f.Quarantined == nil {
		f.Quarantined = []model.JobID{} // read back, and empty
	}
	if f.Results = s.AppendResults(results); f.Results == nil {
		f.Results = []model.Result{}
	}
	f.LastFence, f.FenceRead = s.LastFence(), true
	return f
}

// eachJob calls fn with every job of the final state.
func (f *Final) eachJob(fn func(j *model.Job)) {
	if f.sys != nil {
		f.sys.EachJob(fn)
		return
	}
	for i := range f.Jobs {
		fn(&f.Jobs[i])
	}
}

// eachMessage calls fn with every broker message of the final state; fn
// must not keep the pointer.
func (f *Final) eachMessage(fn func(m *model.Message)) {
	if f.sys != nil {
		var m model.Message // one copy, reused: fn must not keep it
		for id := int64(1); id <= int64(f.sys.Messages()); id++ {
			var ok bool
			if m, ok = f.sys.Message(id); ok { // one not found is one the final state lacks
				fn(&m)
			}
		}
		return
	}
	for i := range f.Messages {
		fn(&f.Messages[i])
	}
}

// messagesKnown reports whether the final state lists the messages.
func (f *Final) messagesKnown() bool { return f.sys != nil || f.Messages != nil }

// eachRow calls fn with every outbox row of the final state, in order.
func (f *Final) eachRow(fn func(r *model.OutboxRow)) {
	if f.sys != nil {
		f.sys.EachRow(fn)
		return
	}
	for i := range f.Rows {
		fn(&f.Rows[i])
	}
}

// eachEffect calls fn with the job and stage of every applied effect.
func (f *Final) eachEffect(fn func(job model.JobID, st model.Stage)) {
	for i := range f.Effects {
		fn(f.Effects[i].Job, f.Effects[i].Stage)
	}
}

// finalView indexes a Final, merged with the history, for the final
// checks.
type finalView struct {
	f        Final
	state    []model.State // by job id: from the history
	final    []model.State // by job id: from Final.Jobs, else from the history
	known    []bool        // the job was enqueued or is listed in Final.Jobs
	rows     []bool        // by event id: Final.Rows holds it (read by row, when first asked)
	rowsRead bool
	effects  [][model.StageDone]int32

	recoverable int // dead jobs an operator could bring back, reported by finishRecoverable
	rowChecks   rowChecks
}

// rowChecks are the verdicts on the outbox rows read back, from one read
// of them (readRows) for the two checks that judge every row: unpublished
// (finishLost) and agreeRows (finishConsistency), each appending its own
// at its place in Finish's order.
type rowChecks struct {
	read        bool
	n           int        // rows read
	unpublished violations // unpublishedRow's, when the run drained
	disagree    violations // agreeRow's, when the final state is Full
}

// readRows reads the outbox rows once for unpublished and agreeRows.
// (Neither check's facts change between the two: only the suite's
// history and the final state are read.)
func (s *Suite) readRows(v *finalView) *rowChecks {
	c := &v.rowChecks
	if c.read {
		return c
	}
	c.read = true
	lost, full := s.drained, v.f.Full
	v.f.eachRow(func(r *model.OutboxRow) {
		c.n++
		if lost {
			s.unpublishedRow(r, &c.unpublished)
		}
		if full {
			s.agreeRow(r, &c.disagree)
		}
	})
	return c
}

func (s *Suite) view(f Final) *finalView {
	n := s.njobs
	f.eachEffect(func(job model.JobID, _ model.Stage) { n = max(n, int(job)+1) })
	v := &s.fv // reused: Finish runs once per seed, and a Suite may run many
	v.reset()
	v.f = f
	v.grow(n)
	for id := range s.njobs {
		j := s.at(id)
		v.state[id], v.final[id], v.known[id] = j.state, j.state, j.enqueued
	}
	// (The jobs are read once: a job the history lacks grows the arrays
	// as it comes, zero as the history leaves them.)
	f.eachJob(func(j *model.Job) {
		if j.ID <= 0 {
			return
		}
		if int(j.ID) >= len(v.state) {
			v.grow(int(j.ID) + 1)
		}
		if !v.known[j.ID] { // not in the history: the final state is all there is
			v.state[j.ID] = j.State
		}
		v.final[j.ID], v.known[j.ID] = j.State, true
	})
	f.eachEffect(func(job model.JobID, st model.Stage) {
		if job > 0 && st < model.StageDone {
			v.effects[job][st]++
		}
	})
	return v
}

// grow lengthens the view's arrays by job id to n (never shortens them);
// past their length the arrays are zero (see reset).
func (v *finalView) grow(n int) {
	if n <= len(v.state) {
		return
	}
	v.state = slices.Grow(v.state, n-len(v.state))[:n]
	v.final = slices.Grow(v.final, n-len(v.final))[:n]
	v.known = slices.Grow(v.known, n-len(v.known))[:n]
	v.effects = slices.Grow(v.effects, n-len(v.effects))[:n]
}

// reset empties the view, zeroing its arrays so they grow back as new.
func (v *finalView) reset() {
	v.f, v.recoverable, v.rowsRead = Final{}, 0, false
	v.rowChecks = rowChecks{unpublished: reuse.Slice(v.rowChecks.unpublished), disagree: reuse.Slice(v.rowChecks.disagree)}
	v.state = reuse.Slice(v.state)
	v.final = reuse.Slice(v.final)
	v.known = reuse.Slice(v.known)
	v.rows = reuse.Slice(v.rows)
	v.effects = reuse.Slice(v.effects)
}

// row reports whether Final.Rows holds event id. The rows are read at
// the first question: only an event published with no commit asks one,
// and most runs have none.
func (v *finalView) row(id model.EventID) bool {
	if !v.rowsRead {
		v.rowsRead = true
		v.f.eachRow(func(r *model.OutboxRow) {
			if r.EventID > 0 {
				v.rows = growTo(v.rows, int(r.EventID)+1)
				v.rows[r.EventID] = true
			}
		})
	}
	return id > 0 && id < model.EventID(len(v.rows)) && v.rows[id]
}

func growTo(b []bool, n int) []bool {
	if n <= len(b) {
		return b
	}
	return slices.Grow(b, n-len(b))[:n] // past len the array is zero (see reset)
}
