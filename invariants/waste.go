package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// Wasted work (seed 003: every retry burns tokens; seed 000: heartbeat so
// that a long step is not redistributed mid-way): no two workers run the
// same job's work at the same time. Overlapping work is paid twice and can
// only end in a duplicate or a discarded result — the cost bug of a
// missing heartbeat. Each extraction runs from its start for its latency
// (EvExtract's N), and ends early when its worker crashes or learns it lost
// the lease.

// workState is one job's work in progress and its spending.
type workState struct {
	until  model.Time // the running extraction ends here (0: none)
	fence  uint64     // under this lease
	seq    uint64     // the EvExtract that started it
	tokens int64      // tokens spent by extraction calls since enqueue or redrive
}

func (s *Suite) extract(e *model.Event, j *job) {
	if j == nil {
		return
	}
	w := &j.work
	if w.until > e.At && w.fence != e.Fence {
		s.report(WastedWork, e.Job, fmt.Sprintf("%v: %v started stage %v under fence %d while the extraction under fence %d runs until %s",
			e.Job, e.Actor, e.Stage, e.Fence, w.fence, millis(w.until)), w.seq, e.Seq)
	}
	w.until, w.fence, w.seq = e.At+e.N, e.Fence, e.Seq
	w.tokens += e.N2
}

// crashed ends the work of a worker that died holding the job.
func (s *Suite) crashed(e *model.Event, j *job) {
	if j != nil && e.Fence != 0 && j.work.fence == e.Fence {
		j.work.until = 0
	}
}

// lostLease ends the work of a worker whose heartbeat was refused: it
// drops the job.
func (s *Suite) lostLease(e *model.Event, j *job) {
	if j != nil && !e.OK && j.work.fence == e.Fence {
		j.work.until = 0
	}
}
