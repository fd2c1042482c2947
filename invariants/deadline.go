package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// Deadlines bound running work, not only leases and retries. A stage's
// work runs under its job's deadline as a call runs under a context's.
// Seed 000: "deadlineAt - teto absoluto desde a criação do job,
// independente de quantas tentativas restam. Um job pode ter maxAttempts
// de sobra e ainda assim ser cancelado se o deadline passou; retries e
// deadline são dois limites diferentes que atuam juntos." and "Um job cujo
// deadlineAt já passou é cancelado no momento em que alguém tenta pegá-lo
// (leaseNext), e cancelamento não entra no mapa de DLQ - não existe
// caminho de reprocessFromDlq para um job cancelado." Seed 004: "Ele
// precisa de checkpoint e de limites de tempo, orçamento e autorização
// iguais aos do fluxo síncrono." A synchronous call past its time limit
// returns nothing, and a job touched past its deadline is cancelled as one
// leased past it is. The rule, judged from each stage's start and latency
// (EvExtract) and the calls that follow (README, "Deadlines bound running
// work"):
//
//   - work that starts at or after the deadline is cut at once: no latency;
//   - work begun in time runs at most until the deadline: one that would
//     run past it is cut there and fails (deadline_exceeded), so work that
//     ends at or after the deadline never succeeds;
//   - at or after the deadline nothing of the job is committed (through the
//     outbox or a dual write), checkpointed or acked: a worker that comes
//     back late — from a pause, a slow step — has its call cut, reports
//     deadline_exceeded and the queue cancels the job. It ends cancelled,
//     not succeeded; the stages it committed in time keep their effects.
//
// Heartbeats and the queue's answer to a failure reported in time (which
// may now only cancel or dead-letter) are not work, and may come late.

// workInTime checks a stage's work against the job's deadline.
func (s *Suite) workInTime(e *model.Event, j *job) {
	if j == nil || !j.enqueued || j.deadline <= 0 {
		return
	}
	switch end := e.At + e.N; {
	case e.At >= j.deadline && e.N > 0:
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v stage=%v work started at %s, at or after its deadline %s, and ran for %s: work begun past the deadline is cut at once",
			e.Job, e.Stage, millis(e.At), millis(j.deadline), millis(e.N)), j.deadlineSeq(), s.pausedSince(j), e.Seq)
	case e.At < j.deadline && end > j.deadline:
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v stage=%v work began at %s, before its deadline %s, and ran until %s, past it: the call is cut at the deadline",
			e.Job, e.Stage, millis(e.At), millis(j.deadline), millis(end)), j.deadlineSeq(), e.Seq)
	}
}

// effectInTime checks that an accepted commit, dual write, checkpoint or
// ack came before the job's deadline.
func (s *Suite) effectInTime(e *model.Event, j *job) {
	if !e.OK || j == nil || !j.enqueued || j.deadline <= 0 || e.At < j.deadline {
		return
	}
	what := "acked"
	switch e.Kind {
	case model.EvCommit, model.EvDBWrite:
		what = fmt.Sprintf("stage=%v committed", e.Stage)
	case model.EvAdvance:
		what = fmt.Sprintf("checkpointed at stage=%v", e.Stage)
	}
	s.report(BoundedRetries, e.Job, fmt.Sprintf("%v %s by %v at %s, at or after its deadline %s: past its deadline a job's work commits, checkpoints and acks nothing",
		e.Job, what, e.Actor, millis(e.At), millis(j.deadline)), j.deadlineSeq(), j.work.seq, s.pausedSince(j), e.Seq)
}

// pausedSince is the last pause of a worker holding j under its current
// lease (0: none): a late call usually comes from one.
func (s *Suite) pausedSince(j *job) uint64 {
	if j.sh.pause > j.lease.seq {
		return j.sh.pause
	}
	return 0
}
