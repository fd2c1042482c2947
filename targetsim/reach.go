package targetsim

import (
	"errors"
	"strconv"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// The workload's reach beyond the worker's calls: the plan's outside
// cancels, deletes, metadata updates, out-of-band writes and batch
// inserts, made by the operator (and a client) on a queue that offers
// them (target.Operator).

// reachKinds are the fault kinds that need a target.Operator.
var reachKinds = []faults.Kind{faults.OutsideCancel, faults.Delete, faults.Metadata, faults.OutOfBand, faults.BatchInsert}

// outOfBandErrors is how many errors an out-of-band write adds to a row:
// a long error history.
const outOfBandErrors = 30

// reaches reports whether k is a reach kind.
func reaches(k faults.Kind) bool {
	for _, r := range reachKinds {
		if r == k {
			return true
		}
	}
	return false
}

// timeoutKind reports whether k sets a worker's own timeout (a queue
// without Policy.WorkerTimeouts takes none).
func timeoutKind(k faults.Kind) bool { return k == faults.WorkerTimeout || k == faults.NoTimeout }

// timeoutsOf is nil, or an error naming a worker-timeout fault of the
// plan a queue whose workers set no timeouts of their own cannot take.
func timeoutsOf(pol target.Policy, name string, plan []planned) error {
	for _, f := range plan {
		if timeoutKind(f.Kind) && !pol.WorkerTimeouts {
			return errors.New("fault " + f.Fault.String() + ": target " + name + "'s workers set no timeouts of their own (target.Policy.WorkerTimeouts)")
		}
	}
	return nil
}

// jobTimeout is the timeout job j's worker sets (0: the client's
// JobTimeout; negative: none): the plan's worker-timeout or no-timeout
// of its document.
func (r *run) jobTimeout(j target.Job) target.Time {
	if f := r.docFault(faults.NoTimeout, j); f != nil {
		r.strike(*f)
		return -1
	}
	if f := r.docFault(faults.WorkerTimeout, j); f != nil {
		r.strike(*f)
		return f.For
	}
	return 0
}

// operatorOf is the queue's operator calls, or an error naming a reach
// fault of the plan a queue without them cannot take.
func operatorOf(c target.Conn, name string, plan []planned) (target.Operator, error) {
	op, ok := c.(target.Operator)
	if ok {
		return op, nil
	}
	for _, f := range plan {
		if reaches(f.Kind) {
			return nil, errors.New("fault " + f.Fault.String() + ": target " + name + " offers no operator calls (target.Operator)")
		}
	}
	return nil, nil
}

// startReach schedules the plan's batch inserts.
func (r *run) startReach() {
	for i, f := range r.plan {
		if f.Kind == faults.BatchInsert {
			r.pending++
			r.sched.At(scheduler.Time(f.At), scheduler.Event{Kind: evBatch, Arg: int64(i)})
		}
	}
}

// batch is a client inserting plan fault i's document again, twice in
// one batch: the batch repeats its unique args.
func (r *run) batch(i int) {
	r.pending--
	if r.quiet || r.oper == nil {
		return
	}
	r.batchCall(i)
}

// batchCall is batch's call (parked, in races mode, while it waits).
func (r *run) batchCall(i int) {
	di := int(r.plan[i].Doc - 1)
	d := &r.docs[di]
	req := target.InsertReq{Kind: KindDoc, Args: d.args, MaxAttempts: d.max, Unique: true}
	got, err := r.oper.InsertMany(r.ctx, r.now(), []target.InsertReq{req, req})
	if r.blocked(err) {
		r.parkCont = func() { r.batchCall(i) }
		return
	}
	r.realize(i)
	r.batches++
	if errors.Is(err, target.ErrBatchRepeats) {
		for range 2 {
			r.counts.BatchInserts++
			r.record(target.Op{Kind: target.OpInsert, Actor: "client", Kind2: KindDoc, Args: d.args, MaxAttempts: d.max, Unique: true,
				Batch: r.batches, Err: "batch_repeats"})
		}
		return
	}
	if err != nil {
		r.fail("batch insert", err)
		return
	}
	for _, ins := range got {
		r.counts.Inserts++
		r.counts.BatchInserts++
		if ins.Skipped {
			r.counts.UniqueSkipped++
		}
		r.inserted(target.Op{Kind: target.OpInsert, Actor: "client", Job: ins.Job, Kind2: KindDoc, Args: d.args, MaxAttempts: d.max,
			Unique: true, Skipped: ins.Skipped, Batch: r.batches}, di)
		if d.job == 0 {
			d.job = ins.Job
		}
	}
}

// atFetch aims the plan's outside cancels: a fetch of the attempt a
// cancel names has the operator cancel the job a moment later, while its
// worker works it.
func (r *run) atFetch(o *target.Op) {
	if r.quiet || r.oper == nil {
		return
	}
	di, ok := r.byJob[o.Job]
	if !ok || di < 0 {
		return
	}
	for i := range r.plan {
		f := &r.plan[i]
		if f.Kind == faults.OutsideCancel && !f.consumed && int(f.Doc) == di+1 && int(f.Attempt) == o.Attempt {
			f.consumed = true
			r.sched.After(scheduler.Time(5*ms), scheduler.Event{Kind: evCancel, Arg: int64(i)})
			return
		}
	}
}

// cancelJob is the operator's outside cancel of plan fault i's job.
func (r *run) cancelJob(i int) {
	if r.oper == nil {
		return
	}
	id := r.docs[r.plan[i].Doc-1].job
	j, err := r.oper.Cancel(r.ctx, r.now(), id)
	if r.blocked(err) {
		r.parkCont = func() { r.cancelJob(i) }
		return
	}
	r.strike(r.plan[i].Fault)
	o := target.Op{Kind: target.OpCancelJob, Actor: "operator", Job: id, Applied: true, State: j.State}
	if !r.opErr(&o, err, "outside cancel") {
		return
	}
	r.counts.OutsideCancels++
	r.record(o)
}

// reachTick runs, at an operator's pass, the plan's deletes (of a job
// finished), metadata updates (of a job there) and out-of-band writes
// (of a job completed).
func (r *run) reachTick() {
	if r.quiet || r.oper == nil {
		return
	}
	r.reachFrom(0)
}

// reachFrom is reachTick from plan fault start on.
func (r *run) reachFrom(start int) {
	for i := start; i < len(r.plan); i++ {
		f := &r.plan[i]
		if f.consumed || f.Kind != faults.Delete && f.Kind != faults.Metadata && f.Kind != faults.OutOfBand {
			continue
		}
		id := r.docs[f.Doc-1].job
		st := r.states[id]
		// A delete waits for its job to finish and for the clients' last
		// insert (a deleted job holds no unique args: an insert after it
		// would be the document's second life); an out-of-band write, for
		// the point its attempt field names (outOfBandDue).
		if id == 0 || r.deleted[id] || f.Kind == faults.Delete && (!st.Final() || r.pending > 0) || f.Kind == faults.OutOfBand && !r.outOfBandDue(f.Fault, id) {
			continue
		}
		if !r.reachCall(i, id) {
			var cont func()
			cont = func() {
				if !r.reachCall(i, id) {
					r.parkCont = cont // still waiting
				} else if r.err == nil {
					r.reachFrom(i + 1)
				}
			}
			r.parkCont = cont
			return
		}
		if r.err != nil {
			return
		}
	}
}

// outOfBandDue reports whether out-of-band fault f may write job id's row
// now. attempt=* (0): once the job completed, where no retry follows.
// attempt=A: while the job waits for its next attempt after its A-th
// (retryable, scheduled or available, not running), so that attempt
// runs with the long error history: should it fail too, River's next
// retry is due errors⁴ s later, past any drain (dueAfterEnd).
func (r *run) outOfBandDue(f faults.Fault, id target.JobID) bool {
	st := r.states[id]
	if f.Attempt == 0 {
		return st == target.Completed
	}
	return (st == target.Retryable || st == target.Scheduled || st == target.Available) && r.fetched[id] >= int(f.Attempt)
}

// reachCall is plan fault i's call on job id; false: it waits on a lock
// (races mode), and the same call runs again once it has returned.
func (r *run) reachCall(i int, id target.JobID) bool {
	switch r.plan[i].Kind {
	case faults.Delete:
		return r.deleteJob(id, i)
	case faults.Metadata:
		j, err := r.oper.SetMetadata(r.ctx, r.now(), id, "durasim", "op"+strconv.Itoa(i+1))
		if r.blocked(err) {
			return false
		}
		r.realize(i)
		o := target.Op{Kind: target.OpUpdate, Actor: "operator", Job: id, Key: "metadata", Applied: true, State: j.State}
		if r.opErr(&o, err, "metadata update") {
			r.counts.MetadataUpdates++
			r.record(o)
		}
	case faults.OutOfBand:
		j, err := r.oper.OutOfBand(r.ctx, r.now(), id, outOfBandErrors)
		if r.blocked(err) {
			return false
		}
		r.realize(i)
		o := target.Op{Kind: target.OpUpdate, Actor: "writer", Job: id, Key: "out_of_band", Attempt: outOfBandErrors, Applied: true,
			State: j.State}
		if r.opErr(&o, err, "out-of-band write") {
			r.counts.OutOfBand++
			if !j.State.Final() {
				r.counts.LongErrors++
			}
			r.record(o)
		}
	}
	return true
}

// deleteJob is the operator's delete of a finished job, plan fault i;
// false: its call waits on a lock (races mode).
func (r *run) deleteJob(id target.JobID, i int) bool {
	j, err := r.oper.Delete(r.ctx, r.now(), id)
	if r.blocked(err) {
		return false
	}
	r.realize(i)
	o := target.Op{Kind: target.OpDelete, Actor: "operator", Job: id, Applied: true, State: j.State}
	if errors.Is(err, target.ErrRunning) {
		o.Applied, o.State, o.Err = false, target.Running, "running"
		r.record(o)
		return true
	}
	if !r.opErr(&o, err, "delete") {
		return true
	}
	r.counts.Deletes++
	r.deleted[id] = true
	r.record(o)
	return true
}

// opErr folds an operator call's error into its op: a job not found is
// recorded (true: record o); another error stops the run (false).
func (r *run) opErr(o *target.Op, err error, what string) bool {
	switch {
	case errors.Is(err, target.ErrNotFound):
		o.Applied, o.State, o.Err = false, target.StateNone, "not_found"
	case err != nil:
		r.fail(what, err)
		return false
	}
	return true
}
