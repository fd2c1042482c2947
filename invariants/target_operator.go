package invariants

import (
	"fmt"

	"github.com/durasim/durasim/target"
)

// The operator's calls beyond a worker's (target.Operator): an outside
// cancel, a delete, a metadata update and another writer's change of a
// row, each checked against the job's state as the history has it, and
// folded into the account.

// cancelJob checks an outside cancel: a job not finished is cancelled
// (running, with Policy.CancelAsks, it stays running, its cancel asked);
// a finished one comes back as it was.
func (c *targetChecker) cancelJob(o *top) {
	j := c.job(o.Job, o)
	if j == nil || c.gone(j, o, "an outside cancel") {
		return
	}
	if c.exact {
		want := target.Cancelled
		switch {
		case j.final != nil:
			want = j.final.State
		case j.state == target.Running && c.pol.CancelAsks:
			want = target.Running
		}
		if o.State != want {
			c.add(TargetConsistency, j.id, fmt.Sprintf("an outside cancel of j%d, %s, returned it %s, not %s", j.id, j.state, o.State, want),
				j.stateOp, o)
		}
	}
	switch {
	case o.State == target.Running:
		j.cancelAsked = true
	case o.State == target.Cancelled && j.final == nil:
		j.state, j.stateOp = target.Cancelled, o
		j.finish(o, o)
	case j.final != nil && o.State != j.final.State:
		c.leftFinal(j, o, "an outside cancel returned it "+o.State.String())
	}
}

// deleteJob checks a delete: a job not running is deleted (and holds
// nothing from then on); a running one is refused.
func (c *targetChecker) deleteJob(o *top) {
	j := c.job(o.Job, o)
	if j == nil || c.gone(j, o, "a delete") {
		return
	}
	running := j.state == target.Running && j.final == nil
	switch {
	case c.exact && o.Applied && running:
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s deleted j%d while it was running (fetched by %s)", o.Actor, j.id, j.stateOp.Actor),
			j.stateOp, o)
	case c.exact && !o.Applied && o.Err == "running" && !running:
		c.add(TargetConsistency, j.id, fmt.Sprintf("a delete of j%d was refused as running; the history has it %s", j.id, j.state), j.stateOp, o)
	}
	if o.Applied {
		j.deleted = o
		j.state, j.stateOp = target.StateNone, o
	}
}

// update checks a metadata update or an out-of-band write: the row comes
// back in the state the history has it; an out-of-band write's errors
// count as the row's (Attempt: how many).
func (c *targetChecker) update(o *top) {
	j := c.job(o.Job, o)
	if j == nil || c.gone(j, o, "an update ("+o.Key+")") {
		return
	}
	if c.exact && o.State != j.state {
		c.add(TargetConsistency, j.id, fmt.Sprintf("an update (%s) of j%d returned it %s; the history has it %s (%s by %s)", o.Key, j.id, o.State,
			j.state, j.stateOp.Kind, j.stateOp.Actor), j.stateOp, o)
	}
	j.errors += o.Attempt
}

// gone checks a call on a job the queue did not find: only a deleted
// job may be missing; and a call that found a deleted job is a
// violation. It reports whether the call found nothing.
func (c *targetChecker) gone(j *tjob, o *top, what string) bool {
	notFound := o.Err == "not_found"
	switch {
	case notFound && j.deleted == nil && c.exact:
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s of j%d found no job, though nothing deleted it", what, j.id), j.stateOp, o)
	case !notFound && j.deleted != nil:
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s of j%d found it, though %s deleted it", what, j.id, j.deleted.Actor), j.deleted, o)
	}
	return notFound
}

// refusedInsert checks an insert the queue refused: only a batch that
// repeats a unique job's args, from a queue whose policy refuses such a
// batch whole (Policy.BatchRepeatsRefused), is refused.
func (c *targetChecker) refusedInsert(o *top) {
	if o.Err != "batch_repeats" {
		return
	}
	if !c.pol.BatchRepeatsRefused {
		c.add(TargetUnique, 0, fmt.Sprintf("%s's batch %d was refused for a repeated unique key; the policy skips the repeat", o.Actor, o.Batch), o)
		return
	}
	for _, p := range c.ops {
		if p != o && p.Kind == target.OpInsert && p.Batch == o.Batch && p.Actor == o.Actor && p.Unique && o.Unique && p.Kind2 == o.Kind2 &&
			p.Args == o.Args {
			return
		}
	}
	c.add(TargetUnique, 0, fmt.Sprintf("%s's batch %d was refused for a repeated unique key, but no other insert of the batch repeats it", o.Actor,
		o.Batch), o)
}
