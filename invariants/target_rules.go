package invariants

import (
	"fmt"
	"slices"

	"github.com/durasim/durasim/target"
)

// The calls whose results the queue's policy decides: a handler's
// transactional completion, a report, the rescuer's two calls, the
// scheduler's pass and an operator's retry. Each recomputes what the
// policy says the call must return where the account knows the job's
// state (a complete feed always; a partial one once the job is known
// finished), and follows what the queue returned.

// completeCall checks what a transactional completion returned, against
// the job's state when it was called: completed if it was running, else
// what the policy says of a job no longer running.
func (c *targetChecker) completeCall(p *top) {
	j := c.job(p.Job, p)
	if j == nil {
		return
	}
	resent := c.resentSince(j, p.Actor)
	running := c.exact && c.holds(j, p.Actor) && !resent
	gone := c.known(j, p) && (!c.holds(j, p.Actor) || resent) // no longer running (for this caller)
	rule := c.pol.CompleteNotRunning
	if resent {
		rule = target.CompletionReturnsRow // its message is not the job's any more: the call acts on nothing
	}
	switch {
	case p.Err == "not_found":
		if j.deleted == nil {
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d in a transaction found no job, though no one deleted it", j.id), p)
		}
	case p.Err != "":
		if running {
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d in a transaction failed (%s), though it was running (fetched by %s)",
				j.id, p.Err, j.stateOp.Actor), j.stateOp, p)
		} else if gone && rule != target.CompletionFails {
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d, %s, in a transaction failed (%s); the policy returns the row", j.id, j.state,
				p.Err), j.stateOp, p)
		}
	case p.State != target.Completed:
		switch {
		case running:
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d in a transaction returned %s, though it was running (fetched by %s)",
				j.id, p.State, j.stateOp.Actor), j.stateOp, p)
		case !gone:
		case rule == target.CompletionFails:
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d, %s, in a transaction returned it %s, not the error the policy says", j.id,
				j.state, p.State), j.stateOp, p)
		case rule == target.CompletionCompletes && !j.state.Final():
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d, %s, in a transaction returned it %s; the policy completes it", j.id,
				j.state, p.State), j.stateOp, p)
		case p.State != j.state:
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d in a transaction returned it %s; the history has it %s (%s by %s)", j.id,
				p.State, j.state, j.stateOp.Kind, j.stateOp.Actor), j.stateOp, p)
		}
	case gone && j.final != nil:
		if j.final.State == target.Completed && rule == target.CompletionFails {
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d, completed, in a transaction returned it completed, not the error the policy says",
				j.id), j.final, p)
		} // another final state coming back completed: target-final-kept, at the commit
	case gone && rule != target.CompletionCompletes:
		c.add(TargetConsistency, j.id, fmt.Sprintf("j%d completed in %s's transaction though the history has it %s", j.id, p.Actor, j.state),
			j.stateOp, p)
	}
}

// completeCommit folds a committed transactional completion: completed
// means the job is completed from the commit on (by this transaction, or
// by an earlier call).
func (c *targetChecker) completeCommit(p, commit *top) {
	j := c.jobs[p.Job]
	if j == nil || p.Err != "" || p.State != target.Completed {
		return
	}
	if j.final != nil && !c.deadLetterHeld(j, p) {
		if j.final.State != target.Completed && c.leftFinalAt(j, p, commit, "it came back completed from "+p.Actor+"'s transaction") {
			j.state, j.stateOp = target.Completed, commit
			j.finish(p, commit)
		}
		return // completed before: the row came back as it was
	}
	j.state, j.stateOp = target.Completed, commit
	j.finish(p, commit)
}

func (c *targetChecker) report(o *top) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	h := j.held(o.Actor)
	if !o.Applied {
		if c.exact && j.state == target.Running && j.final == nil && j.stateOp.Actor == o.Actor {
			c.add(TargetConsistency, j.id, fmt.Sprintf("%s's report (%s) on j%d was refused though it still held the job", o.Actor, o.Outcome, j.id),
				j.stateOp, o)
		}
		return
	}
	if c.resentSince(j, o.Actor) {
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s's report (%s) on j%d was applied though an operator's retry sent the job again as a new "+
			"message since its fetch; the policy says its calls act on nothing", o.Actor, o.Outcome, j.id), j.resent, o)
	}
	if c.exact && c.pol.Receipts && j.final == nil && !c.holds(j, o.Actor) {
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s's report (%s) on j%d was applied though its attempt no longer held the job (%s by %s "+
			"since); the policy counts only the holder's receipt", o.Actor, o.Outcome, j.id, j.stateOp.Kind, j.stateOp.Actor), j.stateOp, o)
	}
	if h != nil {
		c.staleWrite(j, o, h.fetch, o.Actor+"'s report ("+o.Outcome.String()+")")
	}
	if c.leftFinal(j, o, o.Actor+"'s report changed it to "+o.State.String()) {
		j.finish(nil, nil)
		j.state, j.stateOp = o.State, o
	}
	if c.exact {
		if want, ok := c.reportState(j, o, h); !ok {
			c.add(TargetConsistency, j.id, fmt.Sprintf("%s reported %s on j%d (attempt %d of %d) and the queue made it %s, not %s", o.Actor,
				o.Outcome, j.id, j.attempt, j.max, o.State, want), o)
		}
		if o.Attempt != j.attempt {
			c.add(TargetConsistency, j.id, fmt.Sprintf("after %s's report j%d is at attempt %d; the history counts %d", o.Actor, j.id, o.Attempt,
				j.attempt), o)
		}
	}
	j.state, j.stateOp = o.State, o
	if o.State.Final() {
		j.finish(o, o)
	} else {
		j.visible, j.visOp = o.At, o
	}
}

// holds reports whether actor's call on j is the running job's holder's,
// as the policy counts it: with receipts, only the latest fetch's actor
// holds it; without, any call on a running job counts.
// resentSince reports whether an operator's retry sent j again as a new
// message (Policy.RetryResends) after actor fetched it: the actor's calls
// name the old message, and act on nothing.
func (c *targetChecker) resentSince(j *tjob, actor string) bool {
	if j.resent == nil {
		return false
	}
	h := j.held(actor)
	return h != nil && c.before(h.fetch, j.resent)
}

func (c *targetChecker) holds(j *tjob, actor string) bool {
	return j.state == target.Running && j.final == nil && (!c.pol.Receipts || j.stateOp.Actor == actor)
}

// reportState recomputes what a report must leave the job in, as the
// policy says (and checks a retry's time within the policy), and reports
// whether the queue did. A worker decides from the row it fetched: a
// zombie's report (another worker fetched the job since) counts the
// errors, the attempt and the max attempts its own fetch saw (an
// operator's retry since may have raised the row's max).
func (c *targetChecker) reportState(j *tjob, o *top, h *hold) (string, bool) {
	seenErrors, seenAttempt, seenMax := j.errors, j.attempt, j.max
	if h != nil {
		seenErrors, seenAttempt, seenMax = h.errors, h.fetch.Attempt, h.max
	}
	soon := func(want target.State) bool {
		return o.State == want || o.State == target.Available && o.At-o.T <= c.pol.AvailableWithin
	}
	switch o.Outcome {
	case target.Done:
		return "completed", o.State == target.Completed
	case target.Cancel:
		if c.pol.CancelCountsError {
			j.errors++
		}
		return "cancelled", o.State == target.Cancelled
	case target.Snooze:
		if j.cancelAsked {
			return "cancelled (its cancel asked)", o.State == target.Cancelled
		}
		if c.pol.Snooze == target.AttemptGivenBack {
			j.attempt = seenAttempt - 1
		} else if seenAttempt >= seenMax {
			return "discarded", o.State == target.Discarded // a counted snooze at the last attempt leaves none
		}
		c.snoozeDue(j, o, h)
		return "scheduled", soon(target.Scheduled)
	case target.Errored:
		j.errors++
		if seenAttempt >= seenMax {
			return "discarded", o.State == target.Discarded
		}
		if j.cancelAsked {
			return "cancelled (its cancel asked)", o.State == target.Cancelled
		}
		if !soon(target.Retryable) {
			return "retryable", false
		}
		c.backoff(j, o, seenErrors+1, "retry")
		return "retryable", true
	}
	return "a known outcome", false
}

// backoff checks the delay a retry set (o.At from o.T) against the
// policy's bounds after the n-th error (the zero Backoff declares none).
func (c *targetChecker) backoff(j *tjob, o *top, n int, what string) {
	if c.pol.Backoff == (target.Backoff{}) {
		return
	}
	lo, hi := c.pol.Backoff.Bound(n)
	if d := o.At - o.T; d < lo || d > hi {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d's %s after error %d is due in %s, outside the policy's [%s, %s]", j.id, what, n,
			target.FormatSeconds(d), target.FormatSeconds(lo), target.FormatSeconds(hi)), o)
	}
}

// snoozeDue checks a snooze's time: as long after the report as the
// handler asked.
func (c *targetChecker) snoozeDue(j *tjob, o *top, h *hold) {
	if h == nil || h.work == nil || h.work.Outcome != target.Snooze {
		return
	}
	if want := o.T + h.work.At; o.At != want {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d's snooze is due at %s; its handler asked for %s from the report at %s (%s)", j.id,
			target.FormatSeconds(o.At), target.FormatSeconds(h.work.At), target.FormatSeconds(o.T), target.FormatSeconds(want)), h.work, o)
	}
}

func (c *targetChecker) stuck(o *top) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	if c.leftFinal(j, o, "the rescuer found it running") {
		j.finish(nil, nil)
		j.state = target.Running
	} else if c.exact && j.state != target.Running {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the rescuer found j%d running; the history has it %s", j.id, j.state), j.stateOp, o)
	}
	if r := c.pol.RescueAfter; r > 0 && o.At > o.T-r {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("the rescuer read j%d as stuck at %s, attempted at %s: less than the policy's %s before", j.id,
			target.FormatSeconds(o.T), target.FormatSeconds(o.At), target.FormatSeconds(r)), o)
	}
	j.lastStuck = o
}

// rescue checks a rescue's decision: retryable after the backoff's delay
// for the errors the row then has, or discarded when the stuck attempt
// stays counted and was the job's last.
func (c *targetChecker) rescue(o *top) {
	j := c.job(o.Job, o)
	if j == nil || !o.Applied {
		return
	}
	if j.lastStuck != nil {
		c.staleWrite(j, o, j.lastStuck, "the rescuer's write ("+o.State.String()+")")
		c.timedOut(j, o, j.lastStuck)
	}
	if c.leftFinal(j, o, "the rescuer changed it to "+o.State.String()) {
		j.finish(nil, nil)
	} else if c.exact && j.state == target.Running && j.lastStuck != nil && j.stateOp.pos > j.lastStuck.pos {
		// Fetched again between the rescuer's read and its write: the
		// rescue took a job another worker had just claimed.
		c.add(TargetConsistency, j.id, fmt.Sprintf("the rescuer changed j%d to %s although %s fetched it after the rescuer read it as stuck",
			j.id, o.State, j.stateOp.Actor), j.lastStuck, j.stateOp, o)
	}
	if c.exact {
		if c.pol.Rescue.CountsError {
			j.errors++
		}
		attempt := j.attempt
		want := target.Retryable
		if j.cancelAsked {
			want = target.Cancelled // an outside cancel asked: not retried
		} else if c.pol.Rescue.Attempt == target.AttemptGivenBack {
			j.attempt--
		} else if j.attempt >= j.max {
			want = target.Discarded
		}
		if o.State != want && !(want == target.Retryable && o.State == target.Available && o.At-o.T <= c.pol.AvailableWithin) {
			c.add(TargetConsistency, j.id, fmt.Sprintf("the rescuer made j%d (attempt %d of %d) %s, not %s", j.id, attempt, j.max, o.State, want), o)
		} else if !o.State.Final() {
			c.backoff(j, o, j.errors, "rescue")
		}
	}
	j.state, j.stateOp = o.State, o
	if o.State.Final() {
		j.finish(o, o)
	} else {
		j.visible, j.visOp = o.At, o
	}
}

// schedule checks the scheduler's pass: a retryable or scheduled job made
// available once due, or discarded because another live job holds its
// unique args.
func (c *targetChecker) schedule(o *top) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	c.leftFinal(j, o, "the scheduler made it available")
	leased := c.exact && c.pol.Lease > 0 && j.final == nil && j.state == target.Running
	if leased {
		c.leaseRunOut(j, o)
	} else if c.exact && j.final == nil && j.state != target.Retryable && j.state != target.Scheduled {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the scheduler made j%d available; the history has it %s", j.id, j.state), j.stateOp, o)
	}
	if j.final == nil && j.visOp != nil && o.T < j.visible && c.before(j.visOp, o) {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("the scheduler made j%d available at %s, before %s, the time %s set", j.id,
			target.FormatSeconds(o.T), target.FormatSeconds(j.visible), j.visOp.Kind), j.visOp, o)
	}
	// A lease queue's retry or snooze only delays the next receive and
	// keeps the attempt counted (goqite's Extend): a delayed job whose
	// attempts are spent comes due as a dead letter.
	spent := c.exact && c.pol.Lease > 0 && j.final == nil && (j.state == target.Retryable || j.state == target.Scheduled) && j.attempt >= j.max
	if spent && o.State != target.Discarded {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the scheduler made j%d %s with its attempts spent (attempt %d of %d); the policy's pass discards it",
			j.id, o.State, j.attempt, j.max), j.stateOp, o)
	}
	if !leased && o.State == target.Available {
		c.late(j, o)
	}
	if o.State == target.Discarded && !leased && !spent {
		if _, maybe := c.liveTwin(j, o); !j.unique || maybe == nil {
			c.add(TargetUnique, j.id, fmt.Sprintf("the scheduler discarded j%d as a unique duplicate, but no other job holds its args", j.id), o)
		}
	}
	j.finish(nil, nil)
	j.state, j.stateOp = o.State, o
	if o.State.Final() {
		j.finish(o, o)
	}
}

// leaseRunOut checks the scheduler's pass taking back a running job, as a
// queue whose fetches hold a lease does: not before the lease of its
// latest fetch ran out, and available again, or discarded if that
// attempt was its last.
func (c *targetChecker) leaseRunOut(j *tjob, o *top) {
	f := j.stateOp
	if until := f.T + c.pol.Lease; o.T < until {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("the scheduler took j%d back from %s at %s, before the lease of its fetch at %s ran out at %s",
			j.id, f.Actor, target.FormatSeconds(o.T), target.FormatSeconds(f.T), target.FormatSeconds(until)), f, o)
	}
	want := target.Available
	if j.attempt >= j.max {
		want = target.Discarded
	}
	if o.State != want {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the scheduler took j%d (attempt %d of %d) back from %s as %s, not %s", j.id, j.attempt,
			j.max, f.Actor, o.State, want), f, o)
	}
}

func (c *targetChecker) retry(o *top) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	if o.Err != "" { // refused: nothing changed; a unique conflict needs a job that may hold its args
		if _, maybe := c.liveTwin(j, o); o.Err == "unique_conflict" && maybe == nil {
			c.add(TargetUnique, j.id, fmt.Sprintf("an operator's retry of j%d was refused as a unique conflict, but no live job has its args", j.id), o)
		}
		return
	}
	if twin, _ := c.liveTwin(j, o); j.unique && twin != nil {
		c.flag(j.id, twin.id)
		c.add(TargetUnique, j.id, fmt.Sprintf("an operator's retry brought j%d back although j%d, with the same args, is %s", j.id, twin.id, twin.state),
			twin.stateOp, o)
	}
	switch c.pol.Retry {
	case target.RetryAddsAttempt:
		if j.attempt >= j.max {
			j.max = j.attempt + 1
		}
	case target.RetryResetsAttempts:
		j.attempt = 0
		clear(j.handed)
	}
	if c.known(j, o) && slices.Contains(c.pol.RetryResends, j.state) {
		j.resent = o
	}
	j.retried, j.cancelAsked = true, false
	j.finish(nil, nil)
	j.state, j.stateOp, j.visible, j.visOp = o.State, o, o.T, o
}

// liveTwin is another unique job with j's kind and args that certainly
// holds them at o, and one that may (nil: none).
func (c *targetChecker) liveTwin(j *tjob, o *top) (certain, maybe *tjob) {
	for _, id := range c.order {
		t := c.jobs[id]
		if t == j || !c.twin(t, j.kind, j.args) {
			continue
		}
		is, may := c.live(t, o)
		if is && certain == nil {
			certain = t
		}
		if may && maybe == nil {
			maybe = t
		}
	}
	return certain, maybe
}

// staleWrite checks a write applied on j as of a read (read: the actor's
// fetch, the rescuer's stuck read) that another actor's call overtook:
// a call that took the job out of running between the read and the
// write (a snooze, a completion, a rescue, an operator's retry). The
// write was meant for the running job the read saw; applied to the job
// in the state the other call left, it is a stale actor's write, and
// every queue's write conditioned on running must refuse it (a running
// job fetched again is not overtaken: which attempt a report counts for
// is Policy.Receipts'), if its policy says its writes need a running job
// (Policy.RunningOnly). Only a complete feed knows the state between two
// ops; a finished job's escape is target-final-kept's too.
func (c *targetChecker) staleWrite(j *tjob, o, read *top, what string) {
	by := j.stateOp
	if !c.exact || !c.pol.RunningOnly || by == nil || j.state == target.Running || by.Actor == o.Actor || !c.before(read, by) || j.final != nil && c.deadLetterHeld(j, o) {
		return
	}
	c.add(TargetConsistency, j.id, fmt.Sprintf("%s on j%d was applied as of its read at %s, but %s by %s at %s had since made it %s: a stale write",
		what, j.id, target.FormatSeconds(read.T), by.Kind, by.Actor, target.FormatSeconds(by.T), j.state), read, by, o)
}

// timedOut checks Policy.WorkerTimeouts at a rescue applied on j as of
// the rescuer's stuck read: the attempt it read (its fetch says the
// worker's timeout) must have run out its timeout, the worker's or else
// the client's, and one whose worker sets none is never taken back. A
// cancel asked from outside is the rescuer's to finish whatever the
// timeout (River's rescuer cancels it first).
func (c *targetChecker) timedOut(j *tjob, o, stuck *top) {
	f := j.handed[stuck.Attempt]
	if !c.pol.WorkerTimeouts || f == nil || j.cancelAsked || o.State == target.Cancelled {
		return
	}
	timeout := f.Timeout
	if timeout == 0 {
		timeout = c.pol.JobTimeout
	}
	switch {
	case timeout < 0:
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("the rescuer made j%d %s, but %s's worker sets no timeout for its attempt %d: the policy's rescuer "+
			"never takes such a job back", j.id, o.State, f.Actor, stuck.Attempt), f, o)
	case timeout > 0 && o.T-f.T < timeout:
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("the rescuer made j%d %s at %s, %s into attempt %d, before its timeout of %s ran out", j.id, o.State,
			target.FormatSeconds(o.T), target.FormatSeconds(o.T-f.T), stuck.Attempt, target.FormatSeconds(timeout)), f, o)
	}
}

// late checks the promise of Policy.DueWithin at o, the pass that made j
// available: a job a call made due (retryable or scheduled, due at
// j.visible) is made available less than DueWithin after it fell due.
func (c *targetChecker) late(j *tjob, o *top) {
	if !c.exact || c.pol.DueWithin <= 0 || j.final != nil || j.visOp == nil || j.state != target.Retryable && j.state != target.Scheduled {
		return
	}
	if d := o.T - j.visible; d >= c.pol.DueWithin {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d fell due at %s (%s by %s) and was made available only at %s, %s late; the policy's "+
			"scheduler makes a due job available within %s", j.id, target.FormatSeconds(j.visible), j.visOp.Kind, j.visOp.Actor,
			target.FormatSeconds(o.T), target.FormatSeconds(d), target.FormatSeconds(c.pol.DueWithin)), j.visOp, o)
	}
}

// lateAtEnd is late for the jobs no pass made available: a job still
// retryable or scheduled when the history's last op came at least
// DueWithin after it fell due.
func (c *targetChecker) lateAtEnd() {
	if !c.exact || c.pol.DueWithin <= 0 || len(c.ops) == 0 {
		return
	}
	last := c.ops[len(c.ops)-1]
	for _, id := range c.order {
		j := c.jobs[id]
		if j.final != nil || j.visOp == nil || j.state != target.Retryable && j.state != target.Scheduled || last.T-j.visible < c.pol.DueWithin {
			continue
		}
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d fell due at %s (%s by %s) and no pass had made it available by the history's end at %s; "+
			"the policy's scheduler makes a due job available within %s", j.id, target.FormatSeconds(j.visible), j.visOp.Kind, j.visOp.Actor,
			target.FormatSeconds(last.T), target.FormatSeconds(c.pol.DueWithin)), j.visOp, last)
	}
}
