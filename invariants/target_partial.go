package invariants

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/target"
)

// The target checks for a partial history: the ops that processes of a
// real run recorded, each as it saw it, where a process killed between an
// operation and its line leaves no line, lines of different processes are
// ordered only by their wall-clock intervals, and the queue's own
// maintenance (rescuer, scheduler, completer) records nothing.
// [CheckTarget] needs the whole history in the queue's order (it recounts
// every attempt and replays every state change); [CheckTargetPartial]
// runs only what such a history and the state read back still prove:
//
//   - target-final-kept: a completion whose transaction committed stays
//     completed in the database;
//   - target-attempts: every attempt a worker was handed, and every row,
//     within the job's max_attempts, as its insert gave it;
//   - target-unique: one live job per unique args in the database; a
//     skipped insert names a job with its kind and args;
//   - target-effect-once: one effect per document whose job completed,
//     and (a transactional design, drained) none for a document none of
//     whose jobs completed;
//   - target-tenant-isolation: each effect carries its job's tenant and
//     document; no key written by jobs of two tenants;
//   - target-consistency: no attempt of a job handed out twice; every
//     inserted job in the database with its insert's kind and args (and,
//     when every insert is recorded, no other job there); the effects table
//     holds exactly the writes the history made durable (give or take a
//     write whose transaction's end, or whose line, a kill cut off: one
//     per attempt of a process that died);
//   - target-drained: every job finished, once the faults stopped.
//
// target-retry-timing is not run: the rescuer's and scheduler's writes,
// which set the times it checks, are not in such a history.
//
// Exposures (overlapping work of one job by two processes) are counted
// from the intervals: the second process's fetch ended before the first's
// later op on its attempt began.

// PartialOp is one op of a partial history and the interval it happened
// in: the call began at or after T0 and returned at or before Op.T.
type PartialOp struct {
	Op target.Op
	T0 target.Time
}

// PartialFeed says what a partial target run gives the checks.
type PartialFeed struct {
	// Drained: the faults stopped and the drain ended with every job
	// finished or its time ran out (target-drained then names the rest).
	Drained bool
	// ExactlyOnce, EffectKinds and Transactional are TargetFeed's.
	ExactlyOnce   bool
	EffectKinds   []string
	Transactional bool
	// InsertsComplete: every insert is in the history (the client that
	// inserts is never killed), so a job no insert returned is a violation.
	InsertsComplete bool
	// NoSnooze: no handler snoozes, so a job's attempt never goes down and
	// no worker is handed an attempt above the one the database ends with.
	NoSnooze bool
}

// PartialChecks lists the checks [CheckTargetPartial] runs, in report
// order: every target check but target-retry-timing.
func PartialChecks() []string {
	return slices.DeleteFunc(TargetChecks(), func(s string) bool { return s == TargetRetryTiming })
}

// CheckTargetPartial runs the checks a partial history supports over its
// ops (in any order: they are sorted by the end of their intervals) and
// the state read back, and returns the violations in check order and the
// exposures.
func CheckTargetPartial(ops []PartialOp, snap target.Snapshot, feed PartialFeed) TargetReport {
	p := newPartial(ops, snap, feed)
	p.inserts()
	p.fetches()
	p.rows()
	p.uniqueRows()
	p.committed()
	p.effects()
	p.effectOnce()
	p.drained()
	var out violations
	for _, name := range PartialChecks() {
		for _, v := range p.vs {
			if v.Invariant == name {
				out = append(out, v)
			}
		}
	}
	return TargetReport{Violations: out, Exposures: p.exposures()}
}

// attemptKey is one actor's attempt on one job.
type attemptKey struct {
	job     target.JobID
	actor   string
	attempt int
}

type partial struct {
	feed    PartialFeed
	ops     []*PartialOp
	rowOf   map[target.JobID]*target.Job
	insOf   map[target.JobID]*target.Op // the insert that created each job
	txEnd   map[partialTx]*target.Op    // the commit or rollback of each transaction
	crashed map[string]bool             // actors that died: any op in flight may have lost its line
	// snapJobs and snapEffects are the state read back, in id order.
	snapJobs    []target.Job
	snapEffects []target.Effect
	vs          violations
}

// partialTx names a transaction: ids are the recorder's, unique per run.
type partialTx = int

func newPartial(ops []PartialOp, snap target.Snapshot, feed PartialFeed) *partial {
	p := &partial{feed: feed, rowOf: map[target.JobID]*target.Job{}, insOf: map[target.JobID]*target.Op{},
		txEnd: map[partialTx]*target.Op{}, crashed: map[string]bool{}}
	for i := range ops {
		p.ops = append(p.ops, &ops[i])
	}
	slices.SortStableFunc(p.ops, func(a, b *PartialOp) int { return cmp.Or(cmp.Compare(a.Op.T, b.Op.T), cmp.Compare(a.Op.Seq, b.Op.Seq)) })
	for i := range snap.Jobs {
		p.rowOf[snap.Jobs[i].ID] = &snap.Jobs[i]
	}
	for _, o := range p.ops {
		switch op := &o.Op; op.Kind {
		case target.OpCommit, target.OpRollback:
			p.txEnd[op.Tx] = op
		case target.OpCrash:
			p.crashed[op.Actor] = true
		}
	}
	p.snapEffects = snap.Effects
	p.snapJobs = snap.Jobs
	return p
}

func (p *partial) add(inv string, j target.JobID, msg string, ops ...*target.Op) {
	var seqs []uint64
	for _, o := range ops {
		if o != nil {
			seqs = append(seqs, o.Seq)
		}
	}
	p.vs.add(inv, model.JobID(j), msg, seqs...)
}

// each calls f for every op of kind k, in interval order.
func (p *partial) each(k target.OpKind, f func(o *target.Op)) {
	for _, po := range p.ops {
		if po.Op.Kind == k {
			f(&po.Op)
		}
	}
}

// inserts: each job created once; a skipped insert names a job of its
// kind and args that a unique insert created.
func (p *partial) inserts() {
	p.each(target.OpInsert, func(o *target.Op) {
		if !o.Skipped {
			if prev := p.insOf[o.Job]; prev != nil {
				p.add(TargetConsistency, o.Job, fmt.Sprintf("an insert returned j%d, which an earlier insert created", o.Job), prev, o)
				return
			}
			p.insOf[o.Job] = o
		}
	})
	p.each(target.OpInsert, func(o *target.Op) {
		if !o.Skipped {
			return
		}
		first := p.insOf[o.Job]
		var kind string
		var args target.Args
		switch row := p.rowOf[o.Job]; {
		case first != nil:
			kind, args = first.Kind2, first.Args
		case row != nil:
			kind, args = row.Kind, row.Args
		default:
			p.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, which neither an insert nor the database has", o.Job), o)
			return
		}
		switch {
		case !o.Unique:
			p.add(TargetUnique, o.Job, fmt.Sprintf("an insert without unique options was skipped as a duplicate of j%d", o.Job), o)
		case kind != o.Kind2 || args != o.Args:
			p.add(TargetUnique, o.Job, fmt.Sprintf("a unique insert was skipped as a duplicate of j%d, whose kind or args differ", o.Job), first, o)
		}
	})
}

// fetches: no attempt of a job handed out twice, none beyond its
// max_attempts, none of a job no insert created or above the attempt the
// database ends with.
func (p *partial) fetches() {
	seen := map[target.JobID]map[int]*target.Op{}
	p.each(target.OpFetch, func(o *target.Op) {
		if seen[o.Job] == nil {
			seen[o.Job] = map[int]*target.Op{}
		}
		if prev := seen[o.Job][o.Attempt]; prev != nil {
			p.add(TargetConsistency, o.Job, fmt.Sprintf("attempt %d of j%d was handed to %s and to %s", o.Attempt, o.Job, prev.Actor, o.Actor), prev, o)
		}
		seen[o.Job][o.Attempt] = o
		ins, row := p.insOf[o.Job], p.rowOf[o.Job]
		if ins == nil && row == nil {
			p.add(TargetConsistency, o.Job, fmt.Sprintf("%s was handed j%d, which neither an insert nor the database has", o.Actor, o.Job), o)
			return
		}
		if ins != nil && o.Attempt > ins.MaxAttempts {
			p.add(TargetAttempts, o.Job, fmt.Sprintf("%s was handed attempt %d of j%d, which has at most %d", o.Actor, o.Attempt, o.Job, ins.MaxAttempts), ins, o)
		}
		if row != nil && p.feed.NoSnooze && o.Attempt > row.Attempt {
			p.add(TargetConsistency, o.Job, fmt.Sprintf("%s was handed attempt %d of j%d; the database ends at attempt %d", o.Actor, o.Attempt, o.Job, row.Attempt), o)
		}
	})
}

// rows: every inserted job in the database as inserted, within its
// max_attempts; with every insert recorded, no job that none created.
func (p *partial) rows() {
	for _, id := range sortedIDs(p.insOf) {
		ins, row := p.insOf[id], p.rowOf[id]
		switch {
		case row == nil:
			p.add(TargetConsistency, id, fmt.Sprintf("j%d, inserted, is not in the database", id), ins)
			continue
		case row.Kind != ins.Kind2 || row.Args != ins.Args:
			p.add(TargetConsistency, id, fmt.Sprintf("the database has j%d's kind or args other than its insert gave", id), ins)
		}
		if row.MaxAttempts != ins.MaxAttempts {
			p.add(TargetAttempts, id, fmt.Sprintf("the database has j%d with max_attempts %d; its insert gave %d", id, row.MaxAttempts, ins.MaxAttempts), ins)
		}
	}
	for _, row := range p.snapJobs {
		if row.Attempt > row.MaxAttempts {
			p.add(TargetAttempts, row.ID, fmt.Sprintf("the database has j%d at attempt %d of at most %d", row.ID, row.Attempt, row.MaxAttempts), p.insOf[row.ID])
		}
		if p.feed.InsertsComplete && p.insOf[row.ID] == nil {
			p.add(TargetConsistency, row.ID, fmt.Sprintf("the database holds j%d, which no insert returned", row.ID))
		}
	}
}

// uniqueRows: no two unique jobs of one kind and args both in a unique
// state (River's default: every state but cancelled and discarded).
func (p *partial) uniqueRows() {
	type ka struct {
		kind string
		args target.Args
	}
	live := map[ka]*target.Job{}
	for i := range p.snapJobs {
		row := &p.snapJobs[i]
		if !row.Unique || !uniqueState(row.State) {
			continue
		}
		k := ka{row.Kind, row.Args}
		if first := live[k]; first != nil {
			p.add(TargetUnique, row.ID, fmt.Sprintf("j%d and j%d, unique with the same args, are %s and %s", first.ID, row.ID, first.State, row.State),
				p.insOf[first.ID], p.insOf[row.ID])
			continue
		}
		live[k] = row
	}
}

// committed: a completion whose transaction committed leaves the job
// completed (no operator brings it back in such a run).
func (p *partial) committed() {
	p.each(target.OpComplete, func(o *target.Op) {
		end := p.txEnd[o.Tx]
		if o.State != target.Completed || end == nil || end.Kind != target.OpCommit {
			return
		}
		if row := p.rowOf[o.Job]; row != nil && row.State != target.Completed {
			p.add(TargetFinalKept, o.Job, fmt.Sprintf("%s completed j%d in a transaction that committed; the database says %s", o.Actor, o.Job, row.State), o, end)
		}
	})
}

// durable reports whether an effect write is durable by the history
// (certain) or may be (its transaction's end, or its actor, was cut off).
func (p *partial) durable(o *target.Op) (certain, maybe bool) {
	if !o.Applied {
		return false, false
	}
	if o.Tx == 0 {
		return true, false
	}
	end := p.txEnd[o.Tx]
	if end == nil {
		return false, true
	}
	return end.Kind == target.OpCommit, false
}

// effects: the table holds the writes the history made durable, each
// with its job's tenant and document; no key shared by two tenants.
func (p *partial) effects() {
	written, maybe := map[attemptKey][]*target.Op{}, map[attemptKey]int{}
	keyOwner := map[string]*target.Op{}
	p.each(target.OpEffect, func(o *target.Op) {
		k := attemptKey{o.Job, o.Actor, o.Attempt}
		switch certain, may := p.durable(o); {
		case certain:
			written[k] = append(written[k], o)
		case may:
			maybe[k]++
		}
		p.keyUse(keyOwner, o)
	})
	stored := map[attemptKey][]target.Effect{}
	for _, e := range p.snapEffects {
		k := attemptKey{e.Job, e.Worker, e.Attempt}
		stored[k] = append(stored[k], e)
		p.effectRow(e)
	}
	for _, k := range sortedAttempts(written, stored) {
		w, s := len(written[k]), len(stored[k])
		slack := maybe[k]
		if p.crashed[k.actor] {
			slack++ // a kill between the write and its line (of this attempt or of another the process held)
		}
		switch {
		case s < w:
			p.add(TargetConsistency, k.job, fmt.Sprintf("%s made %d effects of j%d attempt %d durable; the database holds %d", k.actor, w, k.job, k.attempt, s),
				written[k]...)
		case s > w+slack:
			p.add(TargetConsistency, k.job, fmt.Sprintf("the database holds %d effects of j%d attempt %d by %s; its history made %d durable", s, k.job, k.attempt,
				k.actor, w), p.insOf[k.job])
		}
	}
}

func (p *partial) effectRow(e target.Effect) {
	var args target.Args
	switch ins, row := p.insOf[e.Job], p.rowOf[e.Job]; {
	case row != nil:
		args = row.Args
	case ins != nil:
		args = ins.Args
	default:
		p.add(TargetConsistency, e.Job, fmt.Sprintf("effect %d names j%d, which neither an insert nor the database has", e.Seq, e.Job))
		return
	}
	if e.Tenant != args.Tenant || e.Doc != args.Doc {
		p.add(TargetTenant, e.Job, fmt.Sprintf("effect %d of j%d is tenant %s's document %s; the job is tenant %s's document %s", e.Seq, e.Job, e.Tenant,
			e.Doc, args.Tenant, args.Doc), p.insOf[e.Job])
	}
}

// keyUse: a key another tenant's job wrote first is a collision.
func (p *partial) keyUse(owner map[string]*target.Op, o *target.Op) {
	if o.Key == "" {
		return
	}
	first := owner[o.Key]
	if first == nil {
		owner[o.Key] = o
		return
	}
	ft, ot := p.tenantOf(first.Job), p.tenantOf(o.Job)
	if ft != "" && ot != "" && ft != ot {
		p.add(TargetTenant, o.Job, fmt.Sprintf("j%d (tenant %s) wrote its effect under key %s, which j%d of tenant %s wrote first", o.Job, ot, o.Key,
			first.Job, ft), first, o)
	}
}

func (p *partial) tenantOf(j target.JobID) string {
	if row := p.rowOf[j]; row != nil {
		return row.Args.Tenant
	}
	if ins := p.insOf[j]; ins != nil {
		return ins.Args.Tenant
	}
	return ""
}

// effectOnce: one effect per document whose job completed; with a
// transactional design, after the drain, none for one that did not.
func (p *partial) effectOnce() {
	if !p.feed.ExactlyOnce {
		return
	}
	type docKey struct {
		tenant, doc string
		version     int
	}
	byDoc := map[docKey][]target.Effect{}
	done := map[docKey]*target.Job{}
	var docs []docKey
	note := func(k docKey) {
		if byDoc[k] == nil && done[k] == nil {
			docs = append(docs, k)
		}
	}
	for _, e := range p.snapEffects {
		if row := p.rowOf[e.Job]; row != nil {
			k := docKey{row.Args.Tenant, row.Args.Doc, row.Args.Version}
			note(k)
			byDoc[k] = append(byDoc[k], e)
		}
	}
	for i := range p.snapJobs {
		row := &p.snapJobs[i]
		if row.State == target.Completed && slices.Contains(p.feed.EffectKinds, row.Kind) {
			k := docKey{row.Args.Tenant, row.Args.Doc, row.Args.Version}
			note(k)
			if done[k] == nil {
				done[k] = row
			}
		}
	}
	slices.SortFunc(docs, func(a, b docKey) int {
		return cmp.Or(strings.Compare(a.tenant, b.tenant), strings.Compare(a.doc, b.doc), cmp.Compare(a.version, b.version))
	})
	for _, k := range docs {
		es, row := byDoc[k], done[k]
		name := fmt.Sprintf("%s:%s:v%d", k.tenant, k.doc, k.version)
		switch {
		case row != nil && len(es) == 0:
			p.add(TargetEffectOnce, row.ID, fmt.Sprintf("document %s completed (j%d) with no effect", name, row.ID), p.insOf[row.ID])
		case len(es) > 1:
			p.add(TargetEffectOnce, es[1].Job, fmt.Sprintf("document %s has %d effects (%s)", name, len(es), effectList(es)), p.effectWrites(es)...)
		case row == nil && len(es) == 1 && p.feed.Drained && p.feed.Transactional:
			p.add(TargetEffectOnce, es[0].Job, fmt.Sprintf("document %s has an effect (j%d attempt %d) but no job of it completed", name, es[0].Job,
				es[0].Attempt), p.effectWrites(es)...)
		}
	}
}

// effectWrites are the history's writes of the effects es.
func (p *partial) effectWrites(es []target.Effect) []*target.Op {
	var out []*target.Op
	for _, e := range es {
		for _, po := range p.ops {
			if o := &po.Op; o.Kind == target.OpEffect && o.Applied && o.Job == e.Job && o.Attempt == e.Attempt && o.Actor == e.Worker {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// drained: every job in the database finished.
func (p *partial) drained() {
	if !p.feed.Drained {
		return
	}
	for _, row := range p.snapJobs {
		if !row.State.Final() {
			p.add(TargetDrained, row.ID, fmt.Sprintf("j%d is still %s (attempt %d of %d) after the faults stopped and the drain ended", row.ID, row.State,
				row.Attempt, row.MaxAttempts), p.insOf[row.ID])
		}
	}
}

// exposures finds, for each attempt a worker was handed, a later op of
// its own on that attempt that began after another worker's fetch of the
// job had ended: both worked the job at once. One exposure per pair of
// attempts; Ops are the first's fetch, the second's fetch and the first's
// later op.
func (p *partial) exposures() []Exposure {
	fetches := map[target.JobID][]*PartialOp{}
	last := map[attemptKey]*PartialOp{}
	var jobs []target.JobID
	for _, po := range p.ops {
		o := &po.Op
		k := attemptKey{o.Job, o.Actor, o.Attempt}
		switch o.Kind {
		case target.OpFetch:
			if fetches[o.Job] == nil {
				jobs = append(jobs, o.Job)
			}
			fetches[o.Job] = append(fetches[o.Job], po)
		case target.OpWork, target.OpEffect, target.OpComplete, target.OpCommit, target.OpRollback, target.OpTimeout, target.OpCrash:
			if o.Job != 0 && o.Attempt != 0 && (last[k] == nil || last[k].T0 < po.T0) {
				last[k] = po
			}
		}
	}
	slices.Sort(jobs)
	var out []Exposure
	for _, j := range jobs {
		fs := fetches[j]
		for _, first := range fs {
			later := last[attemptKey{j, first.Op.Actor, first.Op.Attempt}]
			if later == nil {
				continue
			}
			for _, second := range fs {
				if second.Op.Actor != first.Op.Actor && second.Op.Attempt > first.Op.Attempt && second.Op.T < later.T0 {
					out = append(out, Exposure{Job: j, First: first.Op.Actor, Second: second.Op.Actor,
						Ops: []uint64{first.Op.Seq, second.Op.Seq, later.Op.Seq}})
				}
			}
		}
	}
	return out
}

func sortedIDs[V any](m map[target.JobID]V) []target.JobID {
	ids := make([]target.JobID, 0, len(m))
	//det:sorted
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// sortedAttempts lists the keys of a and b, by job, attempt, actor.
func sortedAttempts(a map[attemptKey][]*target.Op, b map[attemptKey][]target.Effect) []attemptKey {
	var ks []attemptKey
	//det:sorted
	for k := range a {
		ks = append(ks, k)
	}
	//det:sorted
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(x, y attemptKey) int {
		return cmp.Or(cmp.Compare(x.job, y.job), cmp.Compare(x.attempt, y.attempt), strings.Compare(x.actor, y.actor))
	})
	return ks
}
