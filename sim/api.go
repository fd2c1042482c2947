package sim

import (
	"slices"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// arrive is a client submitting document i to the API (seed 004's async
// request-reply). The API answers with a job id only after the durable
// enqueue; a crash in between leaves the client without an answer, and it
// retries with the same document (hence the same key).
func (r *run) arrive(i int32) {
	if r.api.down {
		r.at(r.api.upAt+clientRetry, evArrival, 0, int64(i))
		return
	}
	act := r.crossing(model.AfterAcceptBeforeEnqueue, faults.AnyWorker)
	if act.Ok && act.Kind == faults.Crash {
		r.crash(&r.api, model.RoleAPI, model.AfterAcceptBeforeEnqueue, evAPIRestart)
		r.at(r.now()+clientRetry, evArrival, 0, int64(i))
		return
	}
	d := &r.docs[i]
	req := model.EnqueueRequest{
		Tenant: d.Tenant, Document: d.ID, Version: 1, PayloadHash: d.Payload,
		Actor: model.Actor{Role: model.RoleAPI, Incarnation: r.api.inc},
	}
	if within, ok := r.inj.Deadline(d.Index); ok {
		req.Deadline = within
	}
	id, err := r.sys.Enqueue(req)
	r.arrivalsLeft--
	e := r.simEvent(model.EvAccept, model.Actor{Role: model.RoleClient, ID: i + 1})
	e.Tenant, e.Job = d.Tenant, id
	if err != nil {
		e.Code = model.CodeIdempotencyConflict
		r.emit(e)
		return
	}
	e.OK = true
	r.emit(e)
	if r.docJob[i] == 0 && slices.Contains(r.cfg.Resubmit, d.Index) {
		r.arrivalsLeft++
		r.at(r.now()+clientRetry, evArrival, 0, int64(i))
	}
	r.noteJob(id, i)
	r.docJob[i] = id
	r.kickWorker()
	if r.ops.Chance(300_000) {
		r.at(r.now()+model.Time(r.ops.Int64N(5000))*model.Millisecond, evStatus, 0, int64(i))
	}
}

// noteJob remembers which document a job works on.
func (r *run) noteJob(id model.JobID, doc int32) {
	for int(id) > len(r.jobDoc) {
		r.jobDoc = append(r.jobDoc, -1)
	}
	if r.jobDoc[id-1] < 0 {
		r.jobDoc[id-1] = doc
	}
}

// statusProbe is a client asking about its job, and about a job id it does
// not own: the API must answer the first and never the second.
func (r *run) statusProbe(i int32) {
	d := &r.docs[i]
	client := model.Actor{Role: model.RoleClient, ID: i + 1}
	if id := r.docJob[i]; id != 0 {
		_, _ = r.sys.Status(client, d.Tenant, id)
	}
	if n := r.sys.Jobs(); n > 0 {
		_, _ = r.sys.Status(client, d.Tenant, model.JobID(1+r.ops.IntN(n)))
	}
}
