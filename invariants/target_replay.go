package invariants

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/target"
)

// The target checks replay the history op by op, keeping the oracle's
// own account of each job (tjob), and check each op against it as the
// queue's policy says. A complete feed's account is exact: every state,
// attempt and error the queue must have, so every number a call returned
// is recomputed. A partial feed's account holds only what the recorded
// ops prove: which jobs the history finished (and from when), the
// attempts handed out, the writes made durable; a check that needs more
// asks known() and says nothing where the history cannot tell.

// top is one op of the history as the checks see it: the op, the start
// of its interval, and its place in the replay's order.
type top struct {
	target.Op
	t0  target.Time
	pos int
}

// tjob is the oracle's account of one job, built from the history.
type tjob struct {
	id       target.JobID
	inserted *top // nil: no insert in the history (the job is known from the database or an op)
	kind     string
	args     target.Args
	unique   bool
	max      int
	retried  bool // an operator's retry brought it back
	resent   *top // the last retry that sent it again as a new message (Policy.RetryResends)
	// attempt: a complete feed's count of the attempts the queue made;
	// a partial feed's highest attempt handed out.
	attempt int
	handed  map[int]*top // the fetch of each attempt handed out
	errors  int          // errors the queue recorded on the row (a complete feed's)
	state   target.State // as the history leaves it (exact only in a complete feed, or once final)
	stateOp *top         // the op that left it so
	// final is the op that finished the job (nil: not finished, or
	// brought back since), finalAt the op from which it holds (a
	// transaction's commit, for its completion).
	final, finalAt *top
	visible        target.Time // no fetch before this (set by a report or a rescue)
	visOp          *top
	lastStuck      *top
	lastFetch      *top
	holds          []*hold // every worker's attempt of it, in fetch order
	// cancelAsked: an outside cancel found it running and only asked
	// (Policy.CancelAsks); deleted: the delete that removed it.
	cancelAsked bool
	deleted     *top
}

// hold is one worker's attempt of a job: its fetch and the ops it made on
// that attempt.
type hold struct {
	fetch    *top
	errors   int  // the errors the row had when this worker fetched it
	max      int  // the row's max attempts when this worker fetched it
	work     *top // its last work op
	last     *top // its last op on the attempt (the release, once released)
	released bool // a report, crash or new fetch of the worker ended it
}

type pendingTx struct {
	ops []*top
}

// attemptKey is one worker's attempt on one job.
type attemptKey struct {
	job     target.JobID
	actor   string
	attempt int
}

// uniquePair names two jobs of one kind and args, lower id first.
type uniquePair struct{ a, b target.JobID }

type targetChecker struct {
	feed    TargetFeed
	pol     target.Policy
	exact   bool // the account is exact: the feed is complete
	ops     []*top
	rows    map[target.JobID]*target.Job
	snap    target.Snapshot
	jobs    map[target.JobID]*tjob
	order   []target.JobID // jobs in the order the history (then the database) first named them
	txs     map[int]*pendingTx
	txEnd   map[int]*top           // each transaction's commit or rollback
	maybeIn map[target.JobID]bool  // jobs a transaction with no recorded end may have inserted
	insOf   map[target.JobID]*top  // each job's first insert (a partial history's lines may come after the job's first ops)
	kinds   map[target.OpKind]bool // the op kinds the history has
	crashed map[string]bool        // actors that died: any write in flight may have lost its line
	durable []*top                 // effect writes durable by the history
	maybe   map[attemptKey][]*top  // effect writes whose transaction's end is not recorded
	owner   map[string]*top        // each effect key's first write
	flagged map[uniquePair]bool    // unique pairs already reported
	noIns   map[target.JobID]bool  // jobs an op named that no insert returned (reported)
	vs      violations
}

func newTargetChecker(ops []TargetOp, snap target.Snapshot, feed TargetFeed) *targetChecker {
	c := &targetChecker{feed: feed, pol: feed.Policy, exact: feed.Complete, rows: map[target.JobID]*target.Job{}, snap: snap,
		jobs: map[target.JobID]*tjob{}, txs: map[int]*pendingTx{}, txEnd: map[int]*top{}, maybeIn: map[target.JobID]bool{},
		kinds: map[target.OpKind]bool{}, crashed: map[string]bool{}, maybe: map[attemptKey][]*top{}, owner: map[string]*top{},
		flagged: map[uniquePair]bool{}, noIns: map[target.JobID]bool{}, insOf: map[target.JobID]*top{}}
	c.ops = make([]*top, len(ops))
	for i := range ops {
		c.ops[i] = &top{Op: ops[i].Op, t0: ops[i].T0}
	}
	if !c.exact {
		slices.SortStableFunc(c.ops, func(a, b *top) int { return cmp.Or(cmp.Compare(a.T, b.T), cmp.Compare(a.Seq, b.Seq)) })
	}
	for i, o := range c.ops {
		o.pos = i
		c.kinds[o.Kind] = true
		switch o.Kind {
		case target.OpCommit, target.OpRollback:
			c.txEnd[o.Tx] = o
		case target.OpCrash:
			c.crashed[o.Actor] = true
		}
	}
	for _, o := range c.ops {
		if o.Kind != target.OpInsert || o.Skipped {
			continue
		}
		switch end := c.txEnd[o.Tx]; {
		case o.Tx != 0 && end == nil && !c.exact:
			c.maybeIn[o.Job] = true
		case (o.Tx == 0 || end != nil && end.Kind == target.OpCommit) && c.insOf[o.Job] == nil:
			c.insOf[o.Job] = o
		}
	}
	for i := range snap.Jobs {
		c.rows[snap.Jobs[i].ID] = &snap.Jobs[i]
	}
	return c
}

func (c *targetChecker) add(inv string, j target.JobID, msg string, ops ...*top) {
	var seqs []uint64
	for _, o := range ops {
		if o != nil {
			seqs = append(seqs, o.Seq)
		}
	}
	c.vs.add(inv, model.JobID(j), msg, seqs...)
}

// before reports whether a certainly happened before b: in a complete
// feed, a comes first in the queue's order; otherwise a's interval ended
// before b's began.
func (c *targetChecker) before(a, b *top) bool {
	if c.exact {
		return a.pos < b.pos
	}
	return a.T < b.t0
}

// known reports whether the account knows j's state at o: always in a
// complete feed; in a partial one once a finish recorded before o holds
// (nothing but an operator's retry, itself recorded, brings a finished
// job back).
func (c *targetChecker) known(j *tjob, o *top) bool {
	return c.exact || j.final != nil && c.before(j.finalAt, o) && c.feed.recorded(target.OpRetry)
}

// live reports whether unique job t certainly holds its args at o, and
// maybe whether it may.
func (c *targetChecker) live(t *tjob, o *top) (certain, maybe bool) {
	if !c.known(t, o) {
		return false, true
	}
	u := c.pol.Unique(t.state)
	return u, u
}

// mayHappen reports whether ops of kind k may be part of the run: seen,
// or not all recorded.
func (c *targetChecker) mayHappen(k target.OpKind) bool { return c.kinds[k] || !c.feed.recorded(k) }

// monotone reports whether no job's attempt count can go down in this run
// (so an attempt is handed out once, and none above the one the database
// ends with): no snooze, rescue or retry that gives attempts back may
// have happened.
func (c *targetChecker) monotone() bool {
	switch {
	case c.pol.Snooze == target.AttemptGivenBack && c.feed.mayReport(target.Snooze) && c.mayHappen(target.OpReport):
		return false
	case c.pol.Rescue.Attempt == target.AttemptGivenBack && c.mayHappen(target.OpRescue):
		return false
	case c.pol.Retry == target.RetryResetsAttempts && c.mayHappen(target.OpRetry):
		return false
	}
	return true
}

// maxKnown reports whether the account knows j's max_attempts: its insert
// gave it, and no retry the history may lack changed it.
func (c *targetChecker) maxKnown(j *tjob) bool {
	return j.inserted != nil && (c.exact || c.pol.Retry != target.RetryAddsAttempt || c.feed.recorded(target.OpRetry) && !j.retried)
}

// op folds one operation into the account, checking it against what the
// history said before. An op inside a handler's transaction is checked
// where it was made and counts once its commit is seen.
func (c *targetChecker) op(o *top) {
	h := c.assign(o)
	defer c.release(o, h)
	if o.Tx != 0 && (o.Kind == target.OpEffect || o.Kind == target.OpComplete || o.Kind == target.OpInsert) {
		tx := c.txs[o.Tx]
		if tx == nil {
			tx = &pendingTx{}
			c.txs[o.Tx] = tx
		}
		tx.ops = append(tx.ops, o)
		switch o.Kind {
		case target.OpEffect:
			c.keyUse(o)
		case target.OpComplete:
			c.completeCall(o)
		}
		return
	}
	switch o.Kind {
	case target.OpInsert:
		c.insert(o)
	case target.OpFetch:
		c.fetch(o)
	case target.OpEffect:
		c.keyUse(o)
		if o.Applied {
			c.durable = append(c.durable, o)
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
	case target.OpCancelJob:
		c.cancelJob(o)
	case target.OpDelete:
		c.deleteJob(o)
	case target.OpUpdate:
		c.update(o)
	}
}

// unended settles the transactions with no recorded end: in a complete
// history they never committed; in a partial one a kill may have cut the
// line of a commit off, so their writes may be durable.
func (c *targetChecker) unended() {
	if c.exact {
		return
	}
	for _, tx := range sortedTxs(c.txs) {
		for _, p := range tx.ops {
			if p.Kind == target.OpEffect && p.Applied {
				k := attemptKey{p.Job, p.Actor, p.Attempt}
				c.maybe[k] = append(c.maybe[k], p)
			}
		}
	}
}

func sortedTxs(m map[int]*pendingTx) []*pendingTx {
	ids := make([]int, 0, len(m))
	//det:sorted
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]*pendingTx, len(ids))
	for i, id := range ids {
		out[i] = m[id]
	}
	return out
}

// job is the account of the job o names. A job no insert returned is a
// violation when every insert is recorded; otherwise the history starts
// following it from the database's row.
func (c *targetChecker) job(id target.JobID, o *top) *tjob {
	if j := c.jobs[id]; j != nil {
		return j
	}
	if ins := c.insOf[id]; ins != nil && !c.exact {
		// The insert's line ended after this op's: the call returned the
		// job after a worker had it.
		c.insert(ins)
		return c.jobs[id]
	}
	row := c.rows[id]
	if c.feed.recorded(target.OpInsert) && !c.maybeIn[id] || row == nil {
		what := "which no insert returned"
		if !c.feed.recorded(target.OpInsert) {
			what = "which neither an insert nor the database has"
		}
		c.noIns[id] = true
		c.add(TargetConsistency, id, fmt.Sprintf("%s by %s names j%d, %s", o.Kind, o.Actor, id, what), o)
		return nil
	}
	return c.follow(row)
}

// follow starts the account of a job the history has no insert of.
func (c *targetChecker) follow(row *target.Job) *tjob {
	j := &tjob{id: row.ID, kind: row.Kind, args: row.Args, unique: row.Unique, max: row.MaxAttempts, handed: map[int]*top{}}
	c.jobs[row.ID] = j
	c.order = append(c.order, row.ID)
	return j
}

// tenantOf is job id's tenant, as its insert or the database has it ("":
// neither).
func (c *targetChecker) tenantOf(id target.JobID) string {
	if j := c.jobs[id]; j != nil {
		return j.args.Tenant
	}
	if row := c.rows[id]; row != nil {
		return row.Args.Tenant
	}
	return ""
}

// leftFinal reports (once per escape) a job the history had finished
// that o shows live again: o must certainly come after the finish.
func (c *targetChecker) leftFinal(j *tjob, o *top, what string) bool {
	return c.leftFinalAt(j, o, o, what)
}

// leftFinalAt is leftFinal for an op that takes effect at at (a
// transaction's op, at its commit).
func (c *targetChecker) leftFinalAt(j *tjob, o, at *top, what string) bool {
	if j.final == nil || !c.before(j.finalAt, at) || !c.feed.recorded(target.OpRetry) {
		return false // not finished, or perhaps not yet, or perhaps brought back by a retry the history lacks
	}
	if c.deadLetterHeld(j, o) {
		return false
	}
	c.add(TargetFinalKept, j.id, fmt.Sprintf("j%d was %s (%s by %s) and no operator asked it to run again, yet %s",
		j.id, j.final.State, j.final.Kind, j.final.Actor, what), j.final, o)
	return true
}

// finish records that op finished j from at on.
func (j *tjob) finish(op, at *top) { j.final, j.finalAt = op, at }

func (c *targetChecker) insert(o *top) {
	if o.Err != "" {
		c.refusedInsert(o)
		return
	}
	if o.Skipped {
		c.skipped(o)
		return
	}
	if prev := c.jobs[o.Job]; prev != nil {
		if prev.inserted != nil && prev.inserted != o {
			c.add(TargetConsistency, o.Job, fmt.Sprintf("an insert returned j%d, which an earlier insert created", o.Job), prev.inserted, o)
		}
		return
	}
	if o.Unique {
		for _, id := range c.order {
			if t := c.jobs[id]; c.twin(t, o.Kind2, o.Args) && c.known(t, o) && c.pol.Unique(t.state) {
				c.flag(t.id, o.Job)
				c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert created j%d although j%d, with the same args, is %s", o.Job, t.id, t.state),
					t.inserted, o)
				break
			}
		}
	}
	j := &tjob{id: o.Job, inserted: o, kind: o.Kind2, args: o.Args, unique: o.Unique, max: o.MaxAttempts, state: target.Available,
		stateOp: o, handed: map[int]*top{}}
	c.jobs[o.Job] = j
	c.order = append(c.order, o.Job)
}

// skipped checks a unique insert skipped as a duplicate: of a job with
// its kind and args, inserted unique, that holds them.
func (c *targetChecker) skipped(o *top) {
	j := c.jobs[o.Job]
	if ins := c.insOf[o.Job]; j == nil && ins != nil && !c.exact {
		c.insert(ins) // the first insert's line ended after this one's
		j = c.jobs[o.Job]
	}
	if j == nil {
		if row := c.rows[o.Job]; row != nil && !c.feed.recorded(target.OpInsert) {
			j = c.follow(row)
		}
	}
	switch {
	case j == nil:
		c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, which no insert created", o.Job), o)
	case !o.Unique:
		c.add(TargetUnique, o.Job, fmt.Sprintf("an insert without unique options was skipped as a duplicate of j%d", o.Job), o)
	case j.kind != o.Kind2 || j.args != o.Args:
		c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, whose kind or args differ", o.Job), j.inserted, o)
	case c.known(j, o) && !c.pol.Unique(j.state):
		c.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, which is %s (not a unique state)", o.Job, j.state),
			j.stateOp, o)
	}
}

// twin reports whether t is a unique job of kind and args.
func (c *targetChecker) twin(t *tjob, kind string, args target.Args) bool {
	return t != nil && t.unique && t.kind == kind && t.args == args
}

// flag notes that the pair a, b was reported: the database's end check
// does not report it again.
func (c *targetChecker) flag(a, b target.JobID) { c.flagged[uniquePair{min(a, b), max(a, b)}] = true }

func (c *targetChecker) fetch(o *top) {
	j := c.job(o.Job, o)
	if j == nil {
		return
	}
	if j.deleted != nil {
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s fetched j%d, which %s deleted", o.Actor, j.id, j.deleted.Actor), j.deleted, o)
	}
	if c.leftFinal(j, o, "it was fetched again by "+o.Actor) {
		j.finish(nil, nil) // follow it from here: one violation per escape
	}
	if c.exact && j.state == target.Running && j.final == nil && !c.lapsed(j, o) {
		c.add(TargetConsistency, j.id, fmt.Sprintf("j%d was fetched by %s while running (fetched by %s), never rescued since", j.id, o.Actor,
			j.stateOp.Actor), j.stateOp, o)
	}
	if j.visOp != nil && o.T < j.visible && j.final == nil && c.before(j.visOp, o) {
		c.add(TargetRetryTiming, j.id, fmt.Sprintf("j%d was fetched at %s, before %s, the time %s set for its next run", j.id,
			target.FormatSeconds(o.T), target.FormatSeconds(j.visible), j.visOp.Kind), j.visOp, o)
	}
	c.fetchAttempt(j, o)
	for _, h := range j.holds {
		if h.fetch.Actor == o.Actor {
			h.released = true
		}
	}
	j.holds = append(j.holds, &hold{fetch: o, errors: j.errors, max: j.max})
	j.state, j.stateOp, j.lastFetch = target.Running, o, o
}

// deadLetterHeld reports whether o, a report or a transactional
// completion, is by a worker that received j, a dead letter its queue
// lets such a worker finish (Policy.DeadLetterHeld): discarded at its
// last attempt, by a report or by the pass when that lease ran out.
func (c *targetChecker) deadLetterHeld(j *tjob, o *top) bool {
	if !c.pol.DeadLetterHeld || o.Kind != target.OpReport && o.Kind != target.OpComplete || j.final.State != target.Discarded ||
		j.final.Kind != target.OpSchedule && j.final.Kind != target.OpReport {
		return false
	}
	return slices.ContainsFunc(j.holds, func(h *hold) bool { return h.fetch.Actor == o.Actor })
}

// lapsed reports whether j, running, is free for o's fetch by its
// queue's rules: a lease that lapses by itself (Policy.LeaseLapses) ran
// out since the fetch that holds it.
func (c *targetChecker) lapsed(j *tjob, o *top) bool {
	return c.pol.LeaseLapses && c.pol.Lease > 0 && j.stateOp.Kind == target.OpFetch && o.T >= j.stateOp.T+c.pol.Lease
}

// fetchAttempt checks the attempt a fetch handed out: the next one by the
// oracle's count (complete), or one not handed out before (partial, where
// no count can go down), and within max_attempts.
func (c *targetChecker) fetchAttempt(j *tjob, o *top) {
	n := o.Attempt
	if c.exact {
		if o.Attempt != j.attempt+1 {
			c.add(TargetConsistency, j.id, fmt.Sprintf("j%d fetched as attempt %d; the history counts %d attempts before", j.id, o.Attempt,
				j.attempt), j.stateOp, o)
		}
		j.attempt++
		n = j.attempt
	} else {
		if prev := j.handed[o.Attempt]; prev != nil && c.monotone() {
			c.add(TargetConsistency, j.id, fmt.Sprintf("attempt %d of j%d was handed to %s and to %s", o.Attempt, j.id, prev.Actor, o.Actor),
				prev, o)
		}
		j.attempt = max(j.attempt, o.Attempt)
	}
	j.handed[o.Attempt] = o
	if c.maxKnown(j) && n > j.max {
		c.add(TargetAttempts, j.id, fmt.Sprintf("j%d fetched for attempt %d of at most %d", j.id, n, j.max), j.inserted, o)
	}
}

// assign adds a worker's op on a job to the attempt it belongs to: the
// one its attempt names (ops that carry the fetched attempt), else the
// worker's latest attempt of the job still held.
func (c *targetChecker) assign(o *top) *hold {
	switch o.Kind {
	case target.OpWork, target.OpEffect, target.OpComplete, target.OpCommit, target.OpRollback, target.OpReport, target.OpTimeout,
		target.OpCrash, target.OpPause:
	default:
		return nil
	}
	j := c.jobs[o.Job]
	if j == nil {
		return nil
	}
	h := j.holdOf(o)
	if h == nil {
		return nil
	}
	if c.exact || h.last == nil || h.last.t0 < o.t0 {
		h.last = o
	}
	if o.Kind == target.OpWork {
		h.work = o
	}
	return h
}

// release ends the attempt h once o, a report or a crash, is folded in (a
// crash holding no job ends every attempt its worker held).
func (c *targetChecker) release(o *top, h *hold) {
	switch {
	case o.Kind == target.OpCrash && o.Job == 0:
		for _, id := range c.order {
			for _, h := range c.jobs[id].holds {
				if h.fetch.Actor == o.Actor {
					h.released = true
				}
			}
		}
	case h != nil && (o.Kind == target.OpReport || o.Kind == target.OpCrash):
		h.released = true
	}
}

// holdOf is the attempt of j that o, a worker's op, belongs to.
func (j *tjob) holdOf(o *top) *hold {
	for i := len(j.holds) - 1; i >= 0; i-- {
		h := j.holds[i]
		if h.fetch.Actor != o.Actor {
			continue
		}
		if o.Attempt != 0 && o.Kind != target.OpReport {
			if h.fetch.Attempt == o.Attempt {
				return h
			}
			continue
		}
		if !h.released {
			return h
		}
	}
	return nil
}

// held is actor's attempt of j, if it still holds one.
func (j *tjob) held(actor string) *hold {
	for i := len(j.holds) - 1; i >= 0; i-- {
		if h := j.holds[i]; h.fetch.Actor == actor && !h.released {
			return h
		}
	}
	return nil
}

func (c *targetChecker) commit(o *top) {
	tx := c.txs[o.Tx]
	delete(c.txs, o.Tx)
	if tx == nil {
		return
	}
	for _, p := range tx.ops {
		switch p.Kind {
		case target.OpEffect:
			if p.Applied {
				c.durable = append(c.durable, p)
			}
		case target.OpInsert:
			c.insert(p)
		case target.OpComplete:
			c.completeCommit(p, o)
		}
	}
}

// keyUse checks an effect's idempotency key against the tenant of its
// job: a key another tenant's job wrote first is a collision.
func (c *targetChecker) keyUse(o *top) {
	if o.Key == "" {
		return
	}
	first := c.owner[o.Key]
	if first == nil {
		c.owner[o.Key] = o
		return
	}
	ft, ot := c.tenantOf(first.Job), c.tenantOf(o.Job)
	if ft != "" && ot != "" && ft != ot {
		c.add(TargetTenant, o.Job, fmt.Sprintf("j%d (tenant %s) wrote its effect under key %s, which j%d of tenant %s wrote first",
			o.Job, ot, o.Key, first.Job, ft), first, o)
	}
}
