package sim

import (
	"math"
	"slices"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// arrive is a client submitting document i to the API (seed 004's async
// request-reply). The API runs the design's accept steps; the named
// boundary after_accept_before_enqueue comes right before the enqueue. In
// the correct order a crash there leaves the client without an answer, and
// it retries with the same document (hence the same key).
func (r *run) arrive(i int32, edited bool) {
	kind := evArrival
	if edited {
		kind = evArrivalEdited
	}
	if r.api.down {
		r.at(r.api.upAt+clientRetry, kind, 0, int64(i))
		return
	}
	if !edited && r.docJob[i] == 0 && !r.malformedSent[i] && r.inj.Malformed(r.docs[i].Index) {
		r.malformedSent[i] = true // its client sends one malformed request, then the real one
		if r.malformed(i) {
			return
		}
	}
	replied := false
	var id model.JobID
	for _, st := range r.design.Accept {
		switch st {
		case model.AcceptReply:
			if id == 0 {
				id = model.JobID(r.sys.Jobs() + 1) // the id the enqueue will use
			}
			r.reply(i, id)
			replied = true
		case model.AcceptEnqueue:
			if act := r.crossing(model.AfterAcceptBeforeEnqueue, faults.AnyWorker); act.Ok && act.Kind == faults.Crash {
				r.crash(&r.api, model.RoleAPI, model.AfterAcceptBeforeEnqueue, evAPIRestart, 0)
				if !replied {
					r.at(r.now()+clientRetry, kind, 0, int64(i))
				}
				return
			}
			var err error
			if id, err = r.enqueue(i, edited); err != nil {
				r.refuse(i, replied, edited, err)
				return
			}
		}
	}
}

// malformations are the ways a first request is malformed, chosen by the
// document's index: tenant ids just outside seed 000's pattern
// ^[a-z][a-z0-9-]{1,32}$ (one character, thirty-four, a capital, a digit
// first, an underscore, a brace just past 'z', a space), no document id,
// and versions out of range (below 1: a version too large for an int32
// exists only where int has 64 bits, and traces are the same on 386).
var malformations = []struct {
	tenant     string
	noDocument bool
	version    int
}{
	{tenant: "Bad Tenant"}, {tenant: "acme_corp"}, {noDocument: true}, {version: 0}, {version: math.MinInt32},
	{tenant: "a"}, {tenant: "t0123456789-abcdefghijklmnopqrstuv"}, {tenant: "0acme"}, {tenant: "acme{"},
	{tenant: "acme corp"}, {version: -1},
}

// malformed sends a malformed first request for document i (one of the
// malformations, by the document's index), which the API must refuse with a reason the client is told; the
// client then sends the well-formed request. It reports whether the
// refusal came (a design that accepted the request goes on as if it were
// the real one, for the oracles to judge).
func (r *run) malformed(i int32) bool {
	d := &r.docs[i]
	req := model.EnqueueRequest{Tenant: d.Tenant, Document: d.ID, Version: d.Version, PayloadHash: d.Payload,
		Actor: model.Actor{Role: model.RoleAPI, Incarnation: r.api.inc}}
	switch bad := malformations[int(d.Index)%len(malformations)]; {
	case bad.tenant != "":
		req.Tenant = bad.tenant
	case bad.noDocument:
		req.Document = ""
	default:
		req.Version = bad.version
	}
	id, err := r.sys.Enqueue(req)
	if err == nil {
		r.noteJob(id, i)
		r.kickWorker()
		return false
	}
	// The client records the tenant it sent, however malformed: its trace
	// line quotes it, and reads back the same.
	e := r.simEvent(model.EvAccept, model.Actor{Role: model.RoleClient, ID: i + 1})
	e.Tenant, e.Code, e.Text = req.Tenant, model.RefusalCode(err), "refused: "+err.Error()
	r.emit(e)
	r.at(r.now()+clientRetry, evArrival, 0, int64(i))
	return true
}

// enqueue durably records document i's job (edited: a version of the
// document edited after its first submission, under the same id).
func (r *run) enqueue(i int32, edited bool) (model.JobID, error) {
	d := &r.docs[i]
	req := model.EnqueueRequest{
		Tenant: d.Tenant, Document: d.ID, Version: d.Version, PayloadHash: d.Payload,
		Actor: model.Actor{Role: model.RoleAPI, Incarnation: r.api.inc},
	}
	if edited {
		req.PayloadHash = editedPayload(d.Payload)
	}
	if within, ok := r.inj.Deadline(d.Index); ok {
		req.Deadline = within
		r.announceDeadline(i, within)
	}
	id, err := r.sys.Enqueue(req)
	if err == nil {
		r.noteJob(id, i)
		r.kickWorker()
	}
	return id, err
}

// announceDeadline records the deadline-pressure fault on a request: the
// deadline the client asks for, which the oracles compare with the one the
// queue stores.
func (r *run) announceDeadline(i int32, within model.Time) {
	d := &r.docs[i]
	e := r.simEvent(model.EvFault, model.Actor{Role: model.RoleAPI, Incarnation: r.api.inc})
	e.Tenant, e.Text, e.N2 = d.Tenant, "deadline", within
	if key, ok := r.docKey(i); ok {
		e.Key = key
	}
	r.emit(e)
}

// docKey is the idempotency key the design builds for document i (ok
// false when it refuses to build one), built once per run: a document's
// accept, retries and resubmits all show it.
func (r *run) docKey(i int32) (key string, ok bool) {
	k := &r.docKeys[i]
	if !k.built {
		d := &r.docs[i]
		key, err := r.design.BuildKey(d.Tenant, d.ID, d.Version)
		*k = builtKey{key: key, ok: err == nil, built: true}
	}
	return k.key, k.ok
}

// builtKey is a document's key, once docKey built it.
type builtKey struct {
	key       string
	ok, built bool
}

// reply gives the client its job id (the 202 of async request-reply).
func (r *run) reply(i int32, id model.JobID) {
	d := &r.docs[i]
	r.arrivalsLeft--
	e := r.simEvent(model.EvAccept, model.Actor{Role: model.RoleClient, ID: i + 1})
	e.Tenant, e.Job, e.OK = d.Tenant, id, true
	if key, ok := r.docKey(i); ok {
		e.Key = key // the document the client submitted, as the design keys it
	}
	r.emit(e)
	if r.docJob[i] == 0 {
		r.resubmit(i)
	}
	r.docJob[i] = id
	if r.cfg.ProbeStatus || r.ops.Chance(300_000) {
		r.at(r.now()+model.Time(r.ops.Int64N(5000))*model.Millisecond, evStatus, 0, int64(i))
	}
}

// resubmit schedules the client's second submissions of document i after
// its first reply: the same document again (seed 004's lab run twice), an
// edited one under the same id (a conflict the API must refuse), or both.
func (r *run) resubmit(i int32) {
	d := &r.docs[i]
	again, edited := r.inj.Resubmit(d.Index)
	if again || slices.Contains(r.cfg.Resubmit, d.Index) {
		r.arrivalsLeft++
		r.at(r.now()+clientRetry, evArrival, 0, int64(i))
	}
	if edited {
		r.arrivalsLeft++
		r.at(r.now()+2*clientRetry, evArrivalEdited, 0, int64(i))
	}
}

// editedPayload is the payload hash of an edited version of a document.
func editedPayload(p uint64) uint64 { return (p ^ 0x5bd1e9955bd1e995) * fnvPrime }

// refuse answers the client with an error (an idempotency conflict), and
// the error's text: what the client is told is checked for leaks like any
// other text. A client that already got its reply (reply-before-enqueue)
// was counted.
func (r *run) refuse(i int32, replied, edited bool, err error) {
	if !replied {
		r.arrivalsLeft--
	}
	e := r.simEvent(model.EvAccept, model.Actor{Role: model.RoleClient, ID: i + 1})
	e.Tenant, e.Code, e.Text = r.docs[i].Tenant, model.RefusalCode(err), "refused: "+err.Error()
	e.Payload = r.docs[i].Payload // the payload of the request refused
	if edited {
		e.Payload = editedPayload(e.Payload)
	}
	r.emit(e)
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
	if id := r.docJob[i]; id != 0 {
		r.askStatus(i, d.Tenant, id)
	}
	if n := r.sys.Jobs(); n > 0 {
		r.askStatus(i, d.Tenant, model.JobID(1+r.ops.IntN(n)))
	}
}

// askStatus asks the API for job id's status as tenant and records what
// the client was told: the state and reason code, or not found.
func (r *run) askStatus(i int32, tenant string, id model.JobID) {
	ans, err := r.sys.Status(tenant, id)
	e := r.simEvent(model.EvStatus, model.Actor{Role: model.RoleClient, ID: i + 1})
	e.Job, e.Tenant = id, tenant
	if err != nil {
		e.Code = model.CodeNotFound
	} else {
		e.Code, e.OK, e.Text = model.CodeOK, true, ans.Text()
	}
	r.emit(e)
}
