package sim

import (
	"github.com/durasim/durasim/model"
)

// operatorName is the operator id written to the audit log.
const operatorName = "op-ana"

// operator is the human at the DLQ console. Every few seconds it looks at
// the quarantined jobs. A poison job is reprocessed as a new version (its
// fix is assumed deployed). A job that ran out of attempts or budget waits
// for its dependency to be fixed — the end of the fault phase — and is then
// redriven in bulk with the others (seed 003's controlled bulk redrive;
// seed 004: never redrive in bulk before the cause is fixed). Now and then
// it also tries what it must not be able to do: bring back a cancelled job.
type operator struct {
	tried       map[model.JobID]bool
	quarantined []model.JobID // scratch: the DLQ's quarantined jobs, for a round
	looked      []model.JobID // and for hasWork
}

func (r *run) operatorActor() model.Actor { return model.Actor{Role: model.RoleOperator} }

func (r *run) operatorRound() {
	r.operator.quarantined = r.sys.AppendQuarantined(r.operator.quarantined[:0])
	for _, id := range r.operator.quarantined {
		if r.operator.tried[id] {
			continue
		}
		r.operator.tried[id] = true
		r.decide(id)
	}
	if r.cfg.TryCancelled || r.ops.Chance(50_000) {
		r.tryCancelled()
	}
	if r.ops.Chance(30_000) {
		r.tryForbidden()
	}
	r.at(r.now()+operatorEvery, evOperator, 0, 0)
}

// decide redrives or reprocesses one quarantined job.
func (r *run) decide(id model.JobID) {
	job, ok := r.sys.Job(id)
	if !ok { // the DLQ listed a job the queue does not know: the operator notes the answer
		r.told(r.operatorActor(), model.EvStatus, id, 0, model.ErrNotFound)
		return
	}
	switch job.LastCode {
	case model.CodeMaxAttemptsExceeded, model.CodeBudgetExhausted, model.CodeTransient, model.CodeProviderRateLimited:
		if !r.quiescent {
			delete(r.operator.tried, id) // the dependency is not fixed yet
			return
		}
		if job.RedriveCount < 2 {
			if err := r.redrive(id); err == nil {
				r.kickWorker()
			} else {
				delete(r.operator.tried, id) // rate-limited: try again next round
			}
		}
	default:
		if job.Origin != 0 {
			return // a reprocessed job that died again needs a human, not a loop
		}
		nid, err := r.reprocess(id, operatorName)
		if err == model.ErrRateLimited {
			delete(r.operator.tried, id)
			return
		}
		if err == nil {
			r.noteJob(nid, r.jobDoc[id-1])
			r.kickWorker()
		}
	}
}

// tryCancelled attempts the forbidden: redrive or reprocess a cancelled
// job (cancelled is terminal: both must be refused).
func (r *run) tryCancelled() {
	if n := r.sys.CancelledJobs(); n > 0 {
		id := r.sys.CancelledJob(r.ops.IntN(n))
		_ = r.redrive(id)
		_, _ = r.reprocess(id, operatorName)
	}
}

// tryForbidden asks the DLQ console for what it must refuse: a redrive of
// a job that is not dead, and a reprocess with no operator id.
func (r *run) tryForbidden() {
	n := r.sys.Jobs()
	if n == 0 {
		return
	}
	id := model.JobID(1 + r.ops.IntN(n+1)) // now and then an id no job has
	if j := r.sys.JobRef(id); j == nil || j.State != model.Dead {
		_ = r.redrive(id)
	}
	_, _ = r.reprocess(id, "")
}

// redrive and reprocess are the operator's calls, with its record of a
// refusal.
func (r *run) redrive(id model.JobID) error {
	err := r.sys.Redrive(r.operatorActor(), id)
	if err != nil {
		r.told(r.operatorActor(), model.EvRedrive, id, 0, err)
	}
	return err
}

func (r *run) reprocess(id model.JobID, operator string) (model.JobID, error) {
	nid, err := r.sys.Reprocess(r.operatorActor(), id, operator)
	if err != nil {
		r.told(r.operatorActor(), model.EvReprocess, id, 0, err)
	}
	return nid, err
}

// hasWork reports whether the operator would still act on some entry.
func (op *operator) hasWork(r *run) bool {
	op.looked = r.sys.AppendQuarantined(op.looked[:0])
	for _, id := range op.looked {
		if !op.tried[id] {
			return true
		}
	}
	return false
}

// provider is the modeled LLM provider's rate limit: at most limit calls
// per one-second window; over it the provider answers 429 (transient).
type provider struct {
	window model.Time
	calls  int32
	limit  int32
}

func newProvider() provider { return provider{limit: 50} }

func (p *provider) limited(now model.Time, burst bool) bool {
	if w := now / (1000 * model.Millisecond); w != p.window {
		p.window, p.calls = w, 0
	}
	p.calls++
	return burst || p.calls > p.limit
}
