package invariants

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/target"
)

// The target checks: history-only oracles over a queue durasim does not
// own ([target.Queue]). Their names are the invariants violations carry.
const (
	TargetFinalKept   = "target-final-kept"   // a finished job stays finished unless an operator asked
	TargetAttempts    = "target-attempts"     // attempts counted by the oracle, within max_attempts
	TargetUnique      = "target-unique"       // a unique insert gives one job
	TargetRetryTiming = "target-retry-timing" // no fetch before the time a report set; backoff within the policy
	TargetEffectOnce  = "target-effect-once"  // one effect per document whose work completed, none otherwise
	TargetTenant      = "target-tenant-isolation"
	TargetConsistency = "target-consistency" // what the queue returned and kept agrees with the history
	TargetDrained     = "target-drained"     // liveness: every job finished once the faults stopped
)

// TargetHandlerCheck reports whether check name judges the handler's
// effects (one per document, tenants apart) rather than the queue's own
// guarantees: a correct handler must pass these on any queue; the others
// find the queue's faults.
func TargetHandlerCheck(name string) bool { return name == TargetEffectOnce || name == TargetTenant }

// TargetChecks lists the target checks in report order.
func TargetChecks() []string {
	return []string{TargetFinalKept, TargetAttempts, TargetUnique, TargetRetryTiming, TargetEffectOnce, TargetTenant,
		TargetConsistency, TargetDrained}
}

// TargetFeed says what a target run gives the checks.
type TargetFeed struct {
	// Drained: the faults stopped and the quiescence window passed, so
	// every job must be finished (target-drained).
	Drained bool
	// ExactlyOnce: the handler design promises one effect per document
	// whose work completed; EffectKinds are the job kinds whose completion
	// stands for that work (the handler's kind, or an outbox consumer's).
	ExactlyOnce bool
	EffectKinds []string
	// Transactional: the design writes an effect only with its job's
	// completion, so after the drain an effect of a document none of
	// whose jobs completed is a violation too. (An at-least-once design
	// with an idempotent effect may write it and then see the job
	// cancelled or discarded: at most once, not exactly once.)
	Transactional bool
	// RetryBound is the target's retry policy: the bounds of the delay
	// after a job's errors-th error (nil: not checked).
	RetryBound func(errors int) (lo, hi target.Time)
	// AvailableWithin: a retry or snooze due within this span may make the
	// job available at once instead of retryable or scheduled (River's
	// scheduler interval).
	AvailableWithin target.Time
}

// TargetReport is the verdict of [CheckTarget].
type TargetReport struct {
	Violations []Violation
	// Exposures are the times two workers worked one job at once: a
	// fetch while another worker still held an attempt of it (fetched,
	// and neither reported, committed nor crashed since). An
	// at-least-once queue allows them; they are counted, not violations.
	Exposures []Exposure
}

// Exposure is one overlap: Second fetched Job while First still worked it.
type Exposure struct {
	Job           target.JobID
	First, Second string
	Ops           []uint64 // the first's fetch, the second's fetch
}

// CheckTarget runs the target checks over the operations durasim's actors
// recorded (in the order the queue performed them) and the state read
// back, and returns the violations in check order.
func CheckTarget(ops []target.Op, snap target.Snapshot, feed TargetFeed) TargetReport {
	c := newTargetChecker(feed)
	for i := range ops {
		c.op(&ops[i])
	}
	c.end(snap)
	var out violations
	for _, name := range TargetChecks() {
		for _, v := range c.vs {
			if v.Invariant == name {
				out = append(out, v)
			}
		}
	}
	return TargetReport{Violations: out, Exposures: c.exposures}
}

// tjob is the oracle's own account of one job, built from the history.
type tjob struct {
	id        target.JobID
	inserted  *target.Op
	kind      string
	args      target.Args
	unique    bool
	max       int
	attempt   int          // fetches counted, less applied snoozes
	errors    int          // errors the queue recorded on the row: errored reports, cancels, rescues
	state     target.State // as the history leaves it (StateNone: not known)
	stateOp   *target.Op   // the op that left it so
	final     *target.Op   // the op that finished it (nil: not finished, or retried since)
	visible   target.Time  // no fetch before this (set by a report or a rescue)
	visOp     *target.Op
	holders   []holder // workers with an attempt in their hands
	lastStuck *target.Op
}

type holder struct {
	actor  string
	fetch  *target.Op
	errors int // the errors the row had when this worker fetched it
}

type pendingTx struct {
	ops []*target.Op
}

type targetChecker struct {
	feed      TargetFeed
	jobs      map[target.JobID]*tjob
	order     []target.JobID
	txs       map[int]*pendingTx
	effects   []*target.Op // effects durable by the history: autocommitted, or in a committed transaction
	keyOwner  map[string]*target.Op
	vs        violations
	exposures []Exposure
}

func newTargetChecker(feed TargetFeed) *targetChecker {
	return &targetChecker{feed: feed, jobs: map[target.JobID]*tjob{}, txs: map[int]*pendingTx{}, keyOwner: map[string]*target.Op{}}
}

func (c *targetChecker) add(inv string, j target.JobID, msg string, ops ...*target.Op) {
	var seqs []uint64
	for _, o := range ops {
		if o != nil {
			seqs = append(seqs, o.Seq)
		}
	}
	c.vs.add(inv, model.JobID(j), msg, seqs...)
}

// op folds one operation into the account, checking it against what the
// history said before. An op inside a handler's transaction waits for the
// commit.
func (c *targetChecker) op(o *target.Op) {
	if o.Tx != 0 && o.Kind != target.OpCommit && o.Kind != target.OpRollback {
		if o.Kind == target.OpEffect || o.Kind == target.OpComplete || o.Kind == target.OpInsert {
			tx := c.txs[o.Tx]
			if tx == nil {
				tx = &pendingTx{}
				c.txs[o.Tx] = tx
			}
			tx.ops = append(tx.ops, o)
			if o.Kind == target.OpEffect {
				c.keyUse(o)
			}
			return
		}
	}
	switch o.Kind {
	case target.OpInsert:
		c.insert(o)
	case target.OpFetch:
		c.fetch(o)
	case target.OpEffect:
		c.keyUse(o)
		if o.Applied {
			c.effects = append(c.effects, o)
		}
	case target.OpCommit:
		c.commit(o)
	case target.OpRollback:
		delete(c.txs, o.Tx)
	case target.OpReport:
		c.report(o)
	case target.OpStuck:
		c.stuck(o)
	case target.OpRescue:
		c.rescue(o)
	case target.OpSchedule:
		c.schedule(o)
	case target.OpRetry:
		c.retry(o)
	case target.OpCrash:
		c.release(o.Job, o.Actor)
	}
}

func (c *targetChecker) job(id target.JobID, o *target.Op) *tjob {
	j := c.jobs[id]
	if j == nil {
		c.add(TargetConsistency, id, fmt.Sprintf("%s names j%d, which no insert returned", o.Kind, id), o)
	}
	return j
}

// leftFinal reports (once per job and op) a job the history had finished
// that an op shows live again.
func (c *targetChecker) leftFinal(j *tjob, o *target.Op, what string) bool {
	if j.final == nil {
		return false
	}
	c.add(TargetFinalKept, j.id, fmt.Sprintf("j%d was %s (%s by %s) and no operator asked it to run again, yet %s",
		j.id, j.final.State, j.final.Kind, j.final.Actor, what), j.final, o)
	return true
}

func (c *targetChecker) insert(o *target.Op) {
	if o.Skipped {
		j := c.jobs[o.Job]
		switch {
		case j == nil:
			c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, which no insert created", o.Job), o)
		case !o.Unique:
			c.add(TargetUnique, o.Job, fmt.Sprintf("an insert without unique options was skipped as a duplicate of j%d", o.Job), o)
		case j.kind != o.Kind2 || j.args != o.Args:
			c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, whose kind or args differ", o.Job), j.inserted, o)
		case !uniqueState(j.state):
			c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, which is %s (not a unique state)", o.Job, j.state), j.stateOp, o)
		}
		return
	}
	if prev := c.jobs[o.Job]; prev != nil {
		c.add(TargetConsistency, o.Job, fmt.Sprintf("an insert returned j%d, which an earlier insert created", o.Job), prev.inserted, o)
		return
	}
	if o.Unique {
		for _, id := range c.order {
			if j := c.jobs[id]; j.unique && j.kind == o.Kind2 && j.args == o.Args && uniqueState(j.state) {
				c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert created j%d although j%d, with the same args, is %s", o.Job, j.id, j.state),
					j.inserted, o)
				break
			}
		}
	}
	j := &tjob{id: o.Job, inserted: o, kind: o.Kind2, args: o.Args, unique: o.Unique, max: o.MaxAttempts,
		state: target.Available, stateOp: o}
	c.jobs[o.Job] = j
	c.order = append(c.order, o.Job)
}

// uniqueState: River's default unique states, every state but cancelled
// and discarded.
func uniqueState(s target.State) bool { return s != target.Cancelled && s != target.Discarded }

func (c *targetChecker) fetch(o *target.Op) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	if c.leftFinal(j, o, "it was fetched again by "+o.Actor) {
		j.final = nil // follow it from here: one violation per escape
	}
	if j.state == target.Running && j.final == nil {
		c.add(TargetConsistency, j.id, fmt.Sprintf("j%d was fetched by %s while running (fetched by %s), never rescued since", j.id, o.Actor,
			j.stateOp.Actor), j.stateOp, o)
	}
	if o.T < j.visible && j.final == nil {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d was fetched at %s, before %s, the time %s set for its next run", j.id,
			target.FormatSeconds(o.T), target.FormatSeconds(j.visible), j.visOp.Kind), j.visOp, o)
	}
	if o.Attempt != j.attempt+1 {
		c.add(TargetConsistency, j.id, fmt.Sprintf("j%d fetched as attempt %d; the history counts %d attempts before", j.id, o.Attempt, j.attempt),
			j.stateOp, o)
	}
	j.attempt++
	if j.attempt > j.max {
		c.add(TargetAttempts, j.id, fmt.Sprintf("j%d fetched for attempt %d of at most %d", j.id, j.attempt, j.max), j.inserted, o)
	}
	for _, h := range j.holders {
		if h.actor != o.Actor {
			c.exposures = append(c.exposures, Exposure{Job: j.id, First: h.actor, Second: o.Actor, Ops: []uint64{h.fetch.Seq, o.Seq}})
		}
	}
	c.release(j.id, o.Actor)
	j.holders = append(j.holders, holder{actor: o.Actor, fetch: o, errors: j.errors})
	j.state, j.stateOp = target.Running, o
}

// holder is actor's attempt on j, if it holds one.
func (j *tjob) holder(actor string) *holder {
	for i := range j.holders {
		if j.holders[i].actor == actor {
			h := j.holders[i]
			return &h
		}
	}
	return nil
}

// release drops actor's attempt on job id (0: whatever it held).
func (c *targetChecker) release(id target.JobID, actor string) {
	for _, jid := range c.order {
		if id != 0 && jid != id {
			continue
		}
		j := c.jobs[jid]
		j.holders = slices.DeleteFunc(j.holders, func(h holder) bool { return h.actor == actor })
	}
}

func (c *targetChecker) commit(o *target.Op) {
	tx := c.txs[o.Tx]
	delete(c.txs, o.Tx)
	if tx == nil {
		return
	}
	for _, p := range tx.ops {
		switch p.Kind {
		case target.OpEffect:
			if p.Applied {
				c.effects = append(c.effects, p)
			}
		case target.OpInsert:
			c.insert(p)
		case target.OpComplete:
			c.completeTx(p, o)
		}
	}
}

// completeTx folds a committed transactional completion: the queue
// returned the job's row; completed means it is completed now, by this
// transaction or an earlier call.
func (c *targetChecker) completeTx(p, commit *target.Op) {
	j := c.job(p.Job, p)
	if j == nil {
		return
	}
	if p.State != target.Completed {
		if j.state == target.Running && j.final == nil {
			c.add(TargetConsistency, j.id, fmt.Sprintf("completing j%d in a transaction returned %s, though it was running (fetched by %s)",
				j.id, p.State, j.stateOp.Actor), j.stateOp, p)
		}
		return
	}
	if j.final != nil {
		if j.final.State != target.Completed && c.leftFinal(j, p, "it came back completed from "+p.Actor+"'s transaction") {
			j.state, j.stateOp, j.final = target.Completed, commit, p
		}
		return // completed before: the row came back as it was
	}
	if j.state != target.Running {
		c.add(TargetConsistency, j.id, fmt.Sprintf("j%d completed in %s's transaction though the history has it %s", j.id, p.Actor, j.state),
			j.stateOp, p)
	}
	j.state, j.stateOp, j.final = target.Completed, commit, p
	c.release(j.id, p.Actor)
}

func (c *targetChecker) report(o *target.Op) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	h := j.holder(o.Actor)
	defer c.release(j.id, o.Actor)
	if !o.Applied {
		if j.state == target.Running && j.final == nil && j.stateOp.Actor == o.Actor {
			c.add(TargetConsistency, j.id, fmt.Sprintf("%s's report (%s) on j%d was refused though it still held the job", o.Actor, o.Outcome, j.id),
				j.stateOp, o)
		}
		return
	}
	if c.leftFinal(j, o, o.Actor+"'s report changed it to "+o.State.String()) {
		j.final, j.state, j.stateOp = nil, o.State, o
	}
	want, ok := c.reportState(j, o, h)
	if !ok {
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s reported %s on j%d (attempt %d of %d) and the queue made it %s, not %s", o.Actor,
			o.Outcome, j.id, j.attempt, j.max, o.State, want), o)
	}
	if o.Attempt != j.attempt {
		c.add(TargetConsistency, j.id, fmt.Sprintf("after %s's report j%d is at attempt %d; the history counts %d", o.Actor, j.id, o.Attempt, j.attempt), o)
	}
	j.state, j.stateOp = o.State, o
	if o.State.Final() {
		j.final = o
	} else {
		j.visible, j.visOp = o.At, o
	}
}

// backoff checks the delay a retry set (o.At from o.T) against the
// policy's bounds after the errors-th error.
func (c *targetChecker) backoff(j *tjob, o *target.Op, errors int, what string) {
	if c.feed.RetryBound == nil {
		return
	}
	lo, hi := c.feed.RetryBound(errors)
	if d := o.At - o.T; d < lo || d > hi {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d's %s after error %d is due in %s, outside the policy's [%s, %s]", j.id, what, errors,
			target.FormatSeconds(d), target.FormatSeconds(lo), target.FormatSeconds(hi)), o)
	}
}

// reportState recomputes what a report must leave the job in (and the
// retry's time within the policy), and reports whether the queue did.
//
// A worker decides from the row it fetched: a zombie's report (another
// worker fetched the job since) counts the errors and the attempt its own
// fetch saw, as the queue's client does.
func (c *targetChecker) reportState(j *tjob, o *target.Op, h *holder) (string, bool) {
	seenErrors, seenAttempt := j.errors, j.attempt
	if h != nil {
		seenErrors, seenAttempt = h.errors, h.fetch.Attempt
	}
	soon := func(want target.State) bool {
		return o.State == want || o.State == target.Available && o.At-o.T <= c.feed.AvailableWithin
	}
	switch o.Outcome {
	case target.Done:
		return "completed", o.State == target.Completed
	case target.Cancel:
		j.errors++
		return "cancelled", o.State == target.Cancelled
	case target.Snooze:
		j.attempt = seenAttempt - 1
		return "scheduled", soon(target.Scheduled)
	case target.Errored:
		j.errors++
		if seenAttempt >= j.max {
			return "discarded", o.State == target.Discarded
		}
		if !soon(target.Retryable) {
			return "retryable", false
		}
		c.backoff(j, o, seenErrors+1, "retry")
		return "retryable", true
	}
	return "a known outcome", false
}

func (c *targetChecker) stuck(o *target.Op) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	if c.leftFinal(j, o, "the rescuer found it running") {
		j.final, j.state = nil, target.Running
	} else if j.state != target.Running {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the rescuer found j%d running; the history has it %s", j.id, j.state), j.stateOp, o)
	}
	j.lastStuck = o
}

func (c *targetChecker) rescue(o *target.Op) {
	j := c.job(o.Job, o)
	if j == nil || !o.Applied {
		return
	}
	if c.leftFinal(j, o, "the rescuer changed it to "+o.State.String()) {
		j.final = nil
	} else if j.state == target.Running && j.lastStuck != nil && j.stateOp.Seq > j.lastStuck.Seq {
		// Fetched again between the rescuer's read and its write: the
		// rescue took a job another worker had just claimed.
		c.add(TargetConsistency, j.id, fmt.Sprintf("the rescuer changed j%d to %s although %s fetched it after the rescuer read it as stuck",
			j.id, o.State, j.stateOp.Actor), j.lastStuck, j.stateOp, o)
	}
	j.errors++
	want := target.Retryable
	if j.attempt >= j.max {
		want = target.Discarded
	}
	if o.State != want && !(want == target.Retryable && o.State == target.Available) && o.State != target.Cancelled {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the rescuer made j%d (attempt %d of %d) %s, not %s", j.id, j.attempt, j.max, o.State, want), o)
	} else if !o.State.Final() {
		c.backoff(j, o, j.errors, "rescue")
	}
	j.state, j.stateOp = o.State, o
	if o.State.Final() {
		j.final = o
	} else {
		j.visible, j.visOp = o.At, o
	}
}

func (c *targetChecker) schedule(o *target.Op) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	c.leftFinal(j, o, "the scheduler made it available")
	if j.final == nil && j.state != target.Retryable && j.state != target.Scheduled {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the scheduler made j%d available; the history has it %s", j.id, j.state), j.stateOp, o)
	}
	if j.final == nil && o.T < j.visible {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("the scheduler made j%d available at %s, before %s, the time %s set", j.id,
			target.FormatSeconds(o.T), target.FormatSeconds(j.visible), j.visOp.Kind), j.visOp, o)
	}
	j.final, j.state, j.stateOp = nil, o.State, o
	if o.State.Final() { // discarded: another live job holds its unique args
		j.final = o
	}
}

func (c *targetChecker) retry(o *target.Op) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	if o.Err != "" { // refused: nothing changed; a unique conflict needs a live job with its args
		if o.Err == "unique_conflict" && c.liveTwin(j) == nil {
			c.add(TargetUnique, j.id, fmt.Sprintf("an operator's retry of j%d was refused as a unique conflict, but no live job has its args", j.id), o)
		}
		return
	}
	if twin := c.liveTwin(j); j.unique && twin != nil {
		c.add(TargetUnique, j.id, fmt.Sprintf("an operator's retry brought j%d back although j%d, with the same args, is %s", j.id, twin.id, twin.state),
			twin.stateOp, o)
	}
	if j.attempt >= j.max {
		j.max = j.attempt + 1 // River: a retried job at its last attempt gets one more
	}
	j.final, j.state, j.stateOp, j.visible, j.visOp = nil, o.State, o, o.T, o
}

// liveTwin is another unique job with j's kind and args in a unique
// state, if any.
func (c *targetChecker) liveTwin(j *tjob) *tjob {
	for _, id := range c.order {
		if o := c.jobs[id]; o != j && o.unique && o.kind == j.kind && o.args == j.args && uniqueState(o.state) {
			return o
		}
	}
	return nil
}

// keyUse checks an effect's idempotency key against the tenant of its
// job: a key another tenant's job wrote first is a collision.
func (c *targetChecker) keyUse(o *target.Op) {
	j := c.jobs[o.Job]
	if j == nil || o.Key == "" {
		return
	}
	if first := c.keyOwner[o.Key]; first != nil {
		if fj := c.jobs[first.Job]; fj != nil && fj.args.Tenant != j.args.Tenant {
			c.add(TargetTenant, j.id, fmt.Sprintf("j%d (tenant %s) wrote its effect under key %s, which j%d of tenant %s wrote first",
				j.id, j.args.Tenant, o.Key, fj.id, fj.args.Tenant), first, o)
		}
		return
	}
	c.keyOwner[o.Key] = o
}

// end checks the state read back against the account.
func (c *targetChecker) end(snap target.Snapshot) {
	rows := map[target.JobID]*target.Job{}
	for i := range snap.Jobs {
		rows[snap.Jobs[i].ID] = &snap.Jobs[i]
	}
	for _, id := range c.order {
		j := c.jobs[id]
		row := rows[id]
		if row == nil {
			c.add(TargetConsistency, id, fmt.Sprintf("j%d, inserted, is not in the database", id), j.inserted)
			continue
		}
		c.endJob(j, row)
	}
	for _, row := range snap.Jobs {
		if c.jobs[row.ID] == nil {
			c.add(TargetConsistency, row.ID, fmt.Sprintf("the database holds j%d, which no insert returned", row.ID))
		}
	}
	c.endEffects(snap, rows)
}

func (c *targetChecker) endJob(j *tjob, row *target.Job) {
	if j.final != nil && row.State != j.final.State {
		c.add(TargetFinalKept, j.id, fmt.Sprintf("j%d was %s (%s by %s); the database says %s", j.id, j.final.State, j.final.Kind,
			j.final.Actor, row.State), j.final)
	}
	if j.final == nil && row.State != j.state {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the database has j%d %s; the history left it %s (%s by %s)", j.id, row.State, j.state,
			j.stateOp.Kind, j.stateOp.Actor), j.stateOp)
	}
	if row.Attempt != j.attempt {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the database has j%d at attempt %d; the history counts %d", j.id, row.Attempt, j.attempt), j.stateOp)
	}
	if row.Attempt > row.MaxAttempts || row.MaxAttempts != j.max {
		c.add(TargetAttempts, j.id, fmt.Sprintf("the database has j%d at attempt %d of %d; the history says at most %d", j.id, row.Attempt,
			row.MaxAttempts, j.max), j.inserted)
	}
	if row.Args != j.args || row.Kind != j.kind {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the database has j%d's kind or args other than its insert gave", j.id), j.inserted)
	}
	if c.feed.Drained && !row.State.Final() {
		c.add(TargetDrained, j.id, fmt.Sprintf("j%d is still %s after the faults stopped and the quiescence window passed%s", j.id, row.State,
			c.why(j, row)), j.stateOp)
	}
}

// why says what left a job unfinished, as far as the history tells.
func (c *targetChecker) why(j *tjob, row *target.Job) string {
	switch row.State {
	case target.Running:
		return fmt.Sprintf(" (last fetched by %s at %s, never rescued since)", j.stateOp.Actor, target.FormatSeconds(j.stateOp.T))
	case target.Retryable, target.Scheduled:
		return fmt.Sprintf(" (due at %s, never made available)", target.FormatSeconds(row.ScheduledAt))
	case target.Available:
		return fmt.Sprintf(" (available since %s, never fetched)", target.FormatSeconds(row.ScheduledAt))
	}
	return ""
}

// endEffects checks the effects table: every row written by a durable
// write of the history and by its job's tenant, and, where the design
// promises it, one effect per document whose work completed.
func (c *targetChecker) endEffects(snap target.Snapshot, rows map[target.JobID]*target.Job) {
	type docKey struct {
		tenant, doc string
		version     int
	}
	written := map[target.JobID]int{}
	for _, o := range c.effects {
		written[o.Job]++
	}
	stored := map[target.JobID]int{}
	byDoc := map[docKey][]target.Effect{}
	var docs []docKey
	for _, e := range snap.Effects {
		stored[e.Job]++
		j := c.jobs[e.Job]
		if j == nil {
			c.add(TargetConsistency, e.Job, fmt.Sprintf("effect %d names j%d, which no insert returned", e.Seq, e.Job))
			continue
		}
		if e.Tenant != j.args.Tenant {
			c.add(TargetTenant, e.Job, fmt.Sprintf("effect %d of j%d carries tenant %s; the job is tenant %s's", e.Seq, e.Job, e.Tenant, j.args.Tenant),
				j.inserted)
		}
		k := docKey{j.args.Tenant, j.args.Doc, j.args.Version}
		if byDoc[k] == nil {
			docs = append(docs, k)
		}
		byDoc[k] = append(byDoc[k], e)
	}
	for _, id := range c.order {
		if stored[id] != written[id] {
			c.add(TargetConsistency, id, fmt.Sprintf("the history wrote %d effects for j%d durably; the database holds %d", written[id], id, stored[id]),
				c.jobs[id].inserted)
		}
	}
	if !c.feed.ExactlyOnce {
		return
	}
	completed := map[docKey]*tjob{}
	for _, id := range c.order {
		j := c.jobs[id]
		if row := rows[id]; row != nil && row.State == target.Completed && slices.Contains(c.feed.EffectKinds, j.kind) {
			k := docKey{j.args.Tenant, j.args.Doc, j.args.Version}
			if completed[k] == nil {
				completed[k] = j
				if byDoc[k] == nil {
					docs = append(docs, k)
				}
			}
		}
	}
	slices.SortFunc(docs, func(a, b docKey) int {
		return cmp.Or(strings.Compare(a.tenant, b.tenant), strings.Compare(a.doc, b.doc), cmp.Compare(a.version, b.version))
	})
	for _, k := range docs {
		es, done := byDoc[k], completed[k]
		name := fmt.Sprintf("%s:%s:v%d", k.tenant, k.doc, k.version)
		switch {
		case done != nil && len(es) == 0:
			c.add(TargetEffectOnce, done.id, fmt.Sprintf("document %s completed (j%d) with no effect", name, done.id), done.final)
		case len(es) > 1:
			c.add(TargetEffectOnce, es[1].Job, fmt.Sprintf("document %s has %d effects (%s)", name, len(es), effectList(es)), c.effectOps(es)...)
		case done == nil && len(es) == 1 && c.feed.Drained && c.feed.Transactional: // (before the drain, its completion may be on its way)
			c.add(TargetEffectOnce, es[0].Job, fmt.Sprintf("document %s has an effect (j%d attempt %d) but no job of it completed", name,
				es[0].Job, es[0].Attempt), c.effectOps(es)...)
		}
	}
}

func effectList(es []target.Effect) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("j%d attempt %d by %s", e.Job, e.Attempt, e.Worker)
	}
	return strings.Join(parts, "; ")
}

// effectOps are the history's writes of the effects es.
func (c *targetChecker) effectOps(es []target.Effect) []*target.Op {
	var out []*target.Op
	for _, e := range es {
		for _, o := range c.effects {
			if o.Job == e.Job && o.Attempt == e.Attempt && o.Actor == e.Worker {
				out = append(out, o)
				break
			}
		}
	}
	return out
}
