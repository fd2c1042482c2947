package invariants

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/target"
)

// The checks of the state read back against the account: every job's
// row, the unique jobs that hold their args, the effects table, the
// documents' effects, and (once drained) that nothing is left.

// end checks the state read back against the account.
func (c *targetChecker) end() {
	for i := range c.snap.Jobs {
		row := &c.snap.Jobs[i]
		switch {
		case c.jobs[row.ID] != nil, c.noIns[row.ID]:
		case c.feed.recorded(target.OpInsert) && !c.maybeIn[row.ID]:
			c.noIns[row.ID] = true
			c.add(TargetConsistency, row.ID, fmt.Sprintf("the database holds j%d, which no insert returned", row.ID))
		default:
			c.follow(row)
		}
	}
	for _, id := range c.order {
		j := c.jobs[id]
		if row := c.rows[id]; row != nil {
			c.endJob(j, row)
		} else if j.inserted != nil && j.deleted == nil {
			c.add(TargetConsistency, id, fmt.Sprintf("j%d, inserted, is not in the database", id), j.inserted)
		}
	}
	c.lateAtEnd()
	c.uniqueRows()
	c.effectRows()
	c.effectOnce()
}

func (c *targetChecker) endJob(j *tjob, row *target.Job) {
	if j.final != nil && row.State != j.final.State && c.feed.recorded(target.OpRetry) {
		c.add(TargetFinalKept, j.id, fmt.Sprintf("j%d was %s (%s by %s); the database says %s", j.id, j.final.State, j.final.Kind,
			j.final.Actor, row.State), j.final, j.finalAt)
	}
	if c.exact && j.final == nil && row.State != j.state {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the database has j%d %s; the history left it %s (%s by %s)", j.id, row.State, j.state,
			j.stateOp.Kind, j.stateOp.Actor), j.stateOp)
	}
	switch {
	case c.exact && row.Attempt != j.attempt:
		c.add(TargetConsistency, j.id, fmt.Sprintf("the database has j%d at attempt %d; the history counts %d", j.id, row.Attempt, j.attempt), j.stateOp)
	case !c.exact && j.attempt > row.Attempt && c.monotone():
		f := j.handed[j.attempt]
		c.add(TargetConsistency, j.id, fmt.Sprintf("%s was handed attempt %d of j%d; the database ends at attempt %d", f.Actor, j.attempt, j.id,
			row.Attempt), f)
	}
	known := c.maxKnown(j)
	switch {
	case known && (row.Attempt > row.MaxAttempts || row.MaxAttempts != j.max):
		c.add(TargetAttempts, j.id, fmt.Sprintf("the database has j%d at attempt %d of %d; the history says at most %d", j.id, row.Attempt,
			row.MaxAttempts, j.max), j.inserted)
	case !known && row.Attempt > row.MaxAttempts:
		c.add(TargetAttempts, j.id, fmt.Sprintf("the database has j%d at attempt %d of at most %d", j.id, row.Attempt, row.MaxAttempts), j.inserted)
	}
	if j.inserted != nil && (row.Args != j.args || row.Kind != j.kind || row.Unique != j.unique) {
		c.add(TargetConsistency, j.id, fmt.Sprintf("the database has j%d's kind, args or unique option other than its insert gave", j.id), j.inserted)
	}
	if c.feed.Drained && !row.State.Final() && !c.stranded(j, row) && !c.dueAfterDrain(row) {
		by := j.stateOp
		if by == nil {
			by = j.inserted
		}
		c.add(TargetDrained, j.id, fmt.Sprintf("j%d is still %s at attempt %d of %d after the faults stopped and the drain ended%s", j.id, row.State,
			row.Attempt, row.MaxAttempts, c.why(j, row)), by)
	}
}

// stranded: a job left running by a holder that crashed, whose worker
// set it no timeout, on a queue whose rescuer never takes such a job
// back (Policy.WorkerTimeouts): the queue promised no drain for it.
func (c *targetChecker) stranded(j *tjob, row *target.Job) bool {
	f := j.lastFetch
	return c.pol.WorkerTimeouts && row.State == target.Running && f != nil && f.Timeout < 0 && c.crashed[f.Actor]
}

// dueAfterDrain: a job waiting for a time past the drain's window
// (TargetFeed.DrainUntil), which no drain was to reach.
func (c *targetChecker) dueAfterDrain(row *target.Job) bool {
	return c.feed.DrainUntil > 0 && (row.State == target.Retryable || row.State == target.Scheduled) && row.ScheduledAt >= c.feed.DrainUntil
}

// why says what left a job unfinished, as far as the history tells.
func (c *targetChecker) why(j *tjob, row *target.Job) string {
	since := ""
	switch row.State {
	case target.Running:
		if j.lastFetch == nil {
			return ""
		}
		if c.exact {
			since = ", never rescued since"
		}
		return fmt.Sprintf(" (last fetched by %s at %s%s)", j.lastFetch.Actor, target.FormatSeconds(j.lastFetch.T), since)
	case target.Retryable, target.Scheduled:
		if c.exact {
			since = ", never made available"
		}
		return fmt.Sprintf(" (due at %s%s)", target.FormatSeconds(row.ScheduledAt), since)
	case target.Available:
		if c.exact {
			since = ", never fetched"
		}
		return fmt.Sprintf(" (available since %s%s)", target.FormatSeconds(row.ScheduledAt), since)
	}
	return ""
}

// uniqueRows: no two unique jobs of one kind and args both in a state that
// holds them, in the database (a pair the history already showed is not
// reported again).
func (c *targetChecker) uniqueRows() {
	type ka struct {
		kind string
		args target.Args
	}
	live := map[ka]*target.Job{}
	for i := range c.snap.Jobs {
		row := &c.snap.Jobs[i]
		if !row.Unique || !c.pol.Unique(row.State) {
			continue
		}
		k := ka{row.Kind, row.Args}
		first := live[k]
		if first == nil {
			live[k] = row
			continue
		}
		if !c.flagged[uniquePair{min(first.ID, row.ID), max(first.ID, row.ID)}] {
			c.add(TargetUnique, row.ID, fmt.Sprintf("j%d and j%d, unique with the same args, are %s and %s", first.ID, row.ID, first.State, row.State),
				c.insertOf(first.ID), c.insertOf(row.ID))
		}
	}
}

func (c *targetChecker) insertOf(id target.JobID) *top {
	if j := c.jobs[id]; j != nil {
		return j.inserted
	}
	return nil
}

// effectRows: the effects table holds the writes the history made
// durable, each with its job's tenant and document. In a partial history
// a write may be durable without its line: one whose transaction's end is
// not recorded, and one per attempt of a process that died.
func (c *targetChecker) effectRows() {
	written := map[attemptKey][]*top{}
	for _, o := range c.durable {
		k := attemptKey{o.Job, o.Actor, o.Attempt}
		written[k] = append(written[k], o)
	}
	stored := map[attemptKey]int{}
	var keys []attemptKey
	for _, e := range c.snap.Effects {
		k := attemptKey{e.Job, e.Worker, e.Attempt}
		if stored[k] == 0 && written[k] == nil {
			keys = append(keys, k)
		}
		stored[k]++
		c.effectRow(e)
	}
	//det:sorted (keys sorted below)
	for k := range written {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y attemptKey) int {
		return cmp.Or(cmp.Compare(x.job, y.job), cmp.Compare(x.attempt, y.attempt), strings.Compare(x.actor, y.actor))
	})
	keys = slices.Compact(keys)
	for _, k := range keys {
		if c.jobs[k.job] == nil && c.rows[k.job] == nil {
			continue // effectRow said so
		}
		w, s := len(written[k]), stored[k]
		slack := 0
		if !c.exact {
			slack = len(c.maybe[k])
			if c.crashed[k.actor] {
				slack++ // a kill between the write and its line (of this attempt, or of another its process held)
			}
		}
		switch {
		case s < w:
			c.add(TargetConsistency, k.job, fmt.Sprintf("%s made %d effects of j%d attempt %d durable; the database holds %d", k.actor, w, k.job,
				k.attempt, s), written[k]...)
		case s > w+slack:
			c.add(TargetConsistency, k.job, fmt.Sprintf("the database holds %d effects of j%d attempt %d by %s; its history made %d durable", s,
				k.job, k.attempt, k.actor, w), c.insertOf(k.job))
		}
	}
}

// effectRow checks one effect's job, tenant and document.
func (c *targetChecker) effectRow(e target.Effect) {
	var args target.Args
	switch j, row := c.jobs[e.Job], c.rows[e.Job]; {
	case row != nil:
		args = row.Args
	case j != nil:
		args = j.args
	default:
		c.add(TargetConsistency, e.Job, fmt.Sprintf("effect %d names j%d, which neither an insert nor the database has", e.Seq, e.Job))
		return
	}
	if e.Tenant != args.Tenant || e.Doc != args.Doc {
		c.add(TargetTenant, e.Job, fmt.Sprintf("effect %d of j%d is tenant %s's document %s; the job is tenant %s's document %s", e.Seq, e.Job,
			e.Tenant, e.Doc, args.Tenant, args.Doc), c.insertOf(e.Job))
	}
}

// docKey is one document version.
type docKey struct {
	tenant, doc string
	version     int
}

func (k docKey) String() string { return fmt.Sprintf("%s:%s:v%d", k.tenant, k.doc, k.version) }

// effectOnce: where the design promises it, one effect per document whose
// job of an effect kind completed, and (a transactional design, drained)
// none for a document none of whose jobs completed.
func (c *targetChecker) effectOnce() {
	if !c.feed.ExactlyOnce {
		return
	}
	byDoc := map[docKey][]target.Effect{}
	done := map[docKey]*target.Job{}
	var docs []docKey
	note := func(k docKey) {
		if byDoc[k] == nil && done[k] == nil {
			docs = append(docs, k)
		}
	}
	for _, e := range c.snap.Effects {
		// The job's args as its row has them, or, for a job deleted since,
		// as the history's insert gave them.
		if args, ok := c.argsOf(e.Job); ok {
			k := docKey{args.Tenant, args.Doc, args.Version}
			note(k)
			byDoc[k] = append(byDoc[k], e)
		}
	}
	for _, id := range c.order {
		// A job completed and then deleted still completed its document.
		if j := c.jobs[id]; j.deleted != nil && j.final != nil && j.final.State == target.Completed && slices.Contains(c.feed.EffectKinds, j.kind) {
			k := docKey{j.args.Tenant, j.args.Doc, j.args.Version}
			note(k)
			if done[k] == nil {
				done[k] = &target.Job{ID: j.id, Kind: j.kind, Args: j.args, State: target.Completed}
			}
		}
	}
	for i := range c.snap.Jobs {
		row := &c.snap.Jobs[i]
		if row.State == target.Completed && slices.Contains(c.feed.EffectKinds, row.Kind) {
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
		switch {
		case row != nil && len(es) == 0:
			c.add(TargetEffectOnce, row.ID, fmt.Sprintf("document %s completed (j%d) with no effect", k, row.ID), c.completion(row.ID))
		case len(es) > 1:
			c.add(TargetEffectOnce, es[1].Job, fmt.Sprintf("document %s has %d effects (%s)", k, len(es), effectList(es)), c.effectWrites(es)...)
		case row == nil && len(es) == 1 && c.feed.Drained && c.feed.Transactional: // (before the drain, its completion may be on its way)
			c.add(TargetEffectOnce, es[0].Job, fmt.Sprintf("document %s has an effect (j%d attempt %d) but no job of it completed", k, es[0].Job,
				es[0].Attempt), c.effectWrites(es)...)
		}
	}
}

// argsOf is job id's args: its row's, or, deleted, its insert's.
func (c *targetChecker) argsOf(id target.JobID) (target.Args, bool) {
	if row := c.rows[id]; row != nil {
		return row.Args, true
	}
	if j := c.jobs[id]; j != nil && j.deleted != nil {
		return j.args, true
	}
	return target.Args{}, false
}

// completion is the op that completed job id, as far as the history
// shows (else its insert).
func (c *targetChecker) completion(id target.JobID) *top {
	j := c.jobs[id]
	if j == nil {
		return nil
	}
	if j.final != nil && j.final.State == target.Completed {
		return j.final
	}
	return j.inserted
}

func effectList(es []target.Effect) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("j%d attempt %d by %s", e.Job, e.Attempt, e.Worker)
	}
	return strings.Join(parts, "; ")
}

// effectWrites are the history's writes of the effects es: durable ones,
// else ones that may be.
func (c *targetChecker) effectWrites(es []target.Effect) []*top {
	var out []*top
	for _, e := range es {
		k := attemptKey{e.Job, e.Worker, e.Attempt}
		i := slices.IndexFunc(c.durable, func(o *top) bool { return attemptKey{o.Job, o.Actor, o.Attempt} == k })
		switch {
		case i >= 0:
			out = append(out, c.durable[i])
		case len(c.maybe[k]) > 0:
			out = append(out, c.maybe[k][0])
		}
	}
	return out
}

// exposures finds, for each worker's fetch of a job, the other workers'
// attempts of it still held then: fetched before it and, in a complete
// history, not yet ended by a report or a crash; in a partial one, with
// an op of their own on that attempt that began after the fetch ended.
func (c *targetChecker) exposures() []Exposure {
	type found struct {
		x        Exposure
		pos, sub int
	}
	var all []found
	for _, id := range c.order {
		hs := c.jobs[id].holds
		for _, second := range hs {
			for _, first := range hs {
				if first.fetch.Actor == second.fetch.Actor || !c.before(first.fetch, second.fetch) {
					continue
				}
				after := first.last != nil && c.before(second.fetch, first.last)
				if !after && !(c.exact && !first.released) {
					continue
				}
				x := Exposure{Job: id, First: first.fetch.Actor, Second: second.fetch.Actor, Ops: []uint64{first.fetch.Seq, second.fetch.Seq}}
				if after {
					x.Ops = append(x.Ops, first.last.Seq)
				}
				all = append(all, found{x, second.fetch.pos, first.fetch.pos})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b found) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.sub, b.sub)) })
	out := make([]Exposure, len(all))
	for i, f := range all {
		out[i] = f.x
	}
	return out
}
