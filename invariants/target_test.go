package invariants_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/target"
)

// Fixtures of the target oracles: for each check a history where it
// holds and one where it fails, the violation naming the ops that prove
// it, each run under both feeds. A fixture writes its complete history
// with a [th] builder, which numbers the ops from 1 and puts each 10ms
// after the one before, then the state read back and the violations and
// exposures it expects, in report order. The partial feed gets the same
// history as real processes would have recorded it (partialForm): each op
// an 8ms interval, and the lines such a history lacks (the reports, the
// rescuer's and the scheduler's ops) dropped. An expectation holds under
// both feeds unless it says which one supports it (onlyComplete,
// onlyPartial): the other's report must then lack it.

const (
	sec         = target.Second
	tms         = target.Millisecond
	step        = 10 * tms // between two ops, unless a fixture moves the clock
	kindDoc     = "durasim_doc"
	kindDeliver = "durasim_deliver"
)

// basePolicy is the policy most fixtures' queue declares (River's rules,
// for example): a snooze gives its attempt back, a rescue counts an error
// and keeps the attempt, a cancel counts an error, a retry at the last
// attempt adds one, every state but cancelled and discarded holds a
// unique key, a transactional completion of a job no longer running
// returns its row as it is; retries after errors⁴ s, ±10%, a retry or
// snooze due within 1s made available at once.
func basePolicy() target.Policy {
	return target.Policy{
		AvailableWithin:   sec,
		Backoff:           target.Backoff{Base: sec, Exponent: 4, JitterPPM: 100_000},
		Snooze:            target.AttemptGivenBack,
		Rescue:            target.RescueRule{Attempt: target.AttemptCounted, CountsError: true},
		CancelCountsError: true,
		Retry:             target.RetryAddsAttempt,
		UniqueStates: []target.State{target.Available, target.Scheduled, target.Running, target.Retryable, target.Pending,
			target.Completed},
		CompleteNotRunning: target.CompletionReturnsRow,
	}
}

// unlikePolicy is a queue whose rules are not basePolicy's: a snooze
// counts its attempt, a rescue gives the attempt back and counts no error,
// a cancel counts none, an operator's retry adds no attempt (the count
// starts again), a completed job no longer holds its unique key, and a
// transactional completion of a job no longer running fails; retries
// after 2s·n, no jitter, none at once.
func unlikePolicy() target.Policy {
	return target.Policy{
		Backoff:            target.Backoff{Base: 2 * sec, Exponent: 1},
		Snooze:             target.AttemptCounted,
		Rescue:             target.RescueRule{Attempt: target.AttemptGivenBack},
		Retry:              target.RetryResetsAttempts,
		UniqueStates:       []target.State{target.Available, target.Scheduled, target.Running, target.Retryable},
		CompleteNotRunning: target.CompletionFails,
	}
}

// runnerFeed is the feed a transactional design's run gives: drained,
// exactly once, the base policy.
func runnerFeed() invariants.TargetFeed {
	return invariants.TargetFeed{Drained: true, ExactlyOnce: true, EffectKinds: []string{kindDoc}, Transactional: true, Policy: basePolicy()}
}

// backoff is the base policy's delay after a job's errors-th error,
// jitter aside.
func backoff(errors int) target.Time { return target.Time(errors*errors*errors*errors) * sec }

// Feed changes.
func notDrained(f *invariants.TargetFeed)       { f.Drained = false }
func notTransactional(f *invariants.TargetFeed) { f.Transactional = false }
func notExactlyOnce(f *invariants.TargetFeed)   { f.ExactlyOnce = false }
func noBackoff(f *invariants.TargetFeed)        { f.Policy.Backoff = target.Backoff{} }
func outbox(f *invariants.TargetFeed)           { f.EffectKinds = []string{kindDeliver} }
func unlike(f *invariants.TargetFeed)           { f.Policy = unlikePolicy() }

// uniqueWhileDue: a job waiting for its retry or snooze does not hold its
// unique args (a unique insert may then create another job, and the
// scheduler discards the one whose time comes second).
func uniqueWhileDue(f *invariants.TargetFeed) {
	f.Policy.UniqueStates = []target.State{target.Available, target.Running, target.Pending, target.Completed}
}

// both applies every change in fs.
func both(fs ...func(*invariants.TargetFeed)) func(*invariants.TargetFeed) {
	return func(f *invariants.TargetFeed) {
		for _, g := range fs {
			g(f)
		}
	}
}

// th builds one fixture: the history, the snapshot, and what the checks
// must say about them.
type th struct {
	ops  []target.Op
	now  target.Time
	txs  int
	due  target.Time // when the last retry, snooze or rescue set the job to run again
	jobs map[target.JobID]target.Op
	keys map[target.JobID]string // an effect key other than the job's own
	snap target.Snapshot
	want []tviol
	exp  []texp
}

// tviol is an expected violation: its check, job, the ops that prove it
// and a fragment of its message.
type tviol struct {
	inv    string
	job    model.JobID
	events []uint64
	msg    string
	only   string // "complete", "partial": the one feed that supports it ("": both)
}

// texp is an expected exposure: the first's op that shows it still at
// work differs by feed (a complete history's is its report or crash; a
// partial one's the last it recorded), 0 for none.
type texp struct {
	x                 invariants.Exposure
	complete, partial uint64
	onlyComplete      bool // a partial history cannot show it
}

func newTH() *th { return &th{jobs: map[target.JobID]target.Op{}, keys: map[target.JobID]string{}} }

// add records o as the next op, step after the one before.
func (h *th) add(o target.Op) uint64 {
	h.now += step
	o.Seq, o.T = uint64(len(h.ops)+1), h.now
	h.ops = append(h.ops, o)
	return o.Seq
}

// at puts the next op at t.
func (h *th) at(t target.Time) { h.now = t - step }

// whenDue puts the next op at the time the last report or rescue set.
func (h *th) whenDue() { h.at(h.due) }

// next is the time the next op gets.
func (h *th) next() target.Time { return h.now + step }

// acme is a document of tenant acme, version 1.
func acme(doc string) target.Args { return target.Args{Tenant: "acme", Doc: doc, Version: 1} }

// insert is a client's unique insert of job j for acme's document doc,
// with three attempts.
func (h *th) insert(j target.JobID, doc string) uint64 { return h.insertMax(j, doc, 3) }

func (h *th) insertMax(j target.JobID, doc string, max int) uint64 {
	return h.insertOp(target.Op{Job: j, Args: acme(doc), MaxAttempts: max, Unique: true})
}

// insertOp records o as an insert (by the client, of kind durasim_doc,
// unless o says otherwise); the first insert of a job is what its
// snapshot row repeats.
func (h *th) insertOp(o target.Op) uint64 {
	o.Kind = target.OpInsert
	if o.Actor == "" {
		o.Actor = "client"
	}
	if o.Kind2 == "" {
		o.Kind2 = kindDoc
	}
	if _, ok := h.jobs[o.Job]; !ok && !o.Skipped {
		h.jobs[o.Job] = o
	}
	return h.add(o)
}

func (h *th) fetch(w string, j target.JobID, n int) uint64 {
	return h.add(target.Op{Kind: target.OpFetch, Actor: w, Job: j, Attempt: n})
}

func (h *th) work(w string, j target.JobID, n int, out target.Outcome) uint64 {
	return h.add(target.Op{Kind: target.OpWork, Actor: w, Job: j, Attempt: n, Outcome: out})
}

// snoozed is w's work on attempt n of j ending in a snooze for d.
func (h *th) snoozed(w string, j target.JobID, n int, d target.Time) uint64 {
	return h.add(target.Op{Kind: target.OpWork, Actor: w, Job: j, Attempt: n, Outcome: target.Snooze, At: d})
}

// key is the idempotency key job j's effect is written under.
func (h *th) key(j target.JobID) string {
	if k, ok := h.keys[j]; ok {
		return k
	}
	a := h.jobs[j].Args
	return fmt.Sprintf("%s:%s:v%d", a.Tenant, a.Doc, a.Version)
}

func (h *th) begin() int { h.txs++; return h.txs }

// effect is w's effect for attempt n of j, in transaction tx (0: durable
// at once).
func (h *th) effect(w string, j target.JobID, n, tx int, applied bool) uint64 {
	return h.add(target.Op{Kind: target.OpEffect, Actor: w, Job: j, Attempt: n, Key: h.key(j), Applied: applied, Tx: tx})
}

func (h *th) complete(w string, j target.JobID, tx int, st target.State) uint64 {
	return h.add(target.Op{Kind: target.OpComplete, Actor: w, Job: j, State: st, Tx: tx})
}

func (h *th) commit(w string, j target.JobID, tx int) uint64 {
	return h.add(target.Op{Kind: target.OpCommit, Actor: w, Job: j, Tx: tx})
}

func (h *th) rollback(w string, j target.JobID, tx int, why string) uint64 {
	return h.add(target.Op{Kind: target.OpRollback, Actor: w, Job: j, Tx: tx, Err: why})
}

// report is w's report the queue applied: j is now st at attempt n, due
// at (for a state that is not final).
func (h *th) report(w string, j target.JobID, out target.Outcome, st target.State, n int, at target.Time) uint64 {
	if !st.Final() {
		h.due = at
	}
	return h.add(target.Op{Kind: target.OpReport, Actor: w, Job: j, Outcome: out, Applied: true, State: st, Attempt: n, At: at})
}

// refused is w's report on a job no longer running: left st.
func (h *th) refused(w string, j target.JobID, out target.Outcome, st target.State, n int) uint64 {
	return h.add(target.Op{Kind: target.OpReport, Actor: w, Job: j, Outcome: out, State: st, Attempt: n})
}

// erred is w's attempt n on j ending in the job's errors-th error, which
// the queue retries after exactly the policy's delay.
func (h *th) erred(w string, j target.JobID, n, errors int) (report uint64) {
	h.work(w, j, n, target.Errored)
	return h.report(w, j, target.Errored, target.Retryable, n, h.next()+backoff(errors))
}

func (h *th) stuck(j target.JobID, n int) uint64 {
	return h.add(target.Op{Kind: target.OpStuck, Actor: "rescuer", Job: j, Attempt: n})
}

// rescue is the rescuer setting j to st (applied), due at.
func (h *th) rescue(j target.JobID, st target.State, at target.Time) uint64 {
	if !st.Final() {
		h.due = at
	}
	return h.add(target.Op{Kind: target.OpRescue, Actor: "rescuer", Job: j, State: st, At: at, Applied: true})
}

// rescued is the rescuer taking attempt n of j back (retryable, due d
// later) and, once due, the scheduler making it available.
func (h *th) rescued(j target.JobID, n int, d target.Time) {
	h.stuck(j, n)
	h.rescue(j, target.Retryable, h.next()+d)
	h.scheduled(j)
}

// scheduled is the scheduler making j available when it is due.
func (h *th) scheduled(j target.JobID) uint64 {
	h.whenDue()
	return h.schedule(j, target.Available)
}

func (h *th) schedule(j target.JobID, st target.State) uint64 {
	return h.add(target.Op{Kind: target.OpSchedule, Actor: "scheduler", Job: j, State: st})
}

// retry is an operator asking j to run again: st, available now.
func (h *th) retry(j target.JobID, st target.State) uint64 {
	return h.add(target.Op{Kind: target.OpRetry, Actor: "operator", Job: j, State: st, At: h.next()})
}

func (h *th) crash(w string, j target.JobID, at string) uint64 {
	return h.add(target.Op{Kind: target.OpCrash, Actor: w, Job: j, Boundary: at})
}

// attempt is the ops of one transactional attempt.
type attempt struct{ fetch, work, effect, complete, commit, report uint64 }

// done is w fetching j for attempt n and completing it as the
// transactional design does: the effect and the completion in one
// transaction, then the executor's report, refused since the job is
// completed already.
func (h *th) done(w string, j target.JobID, n int) attempt {
	f := h.fetch(w, j, n)
	a := h.finish(w, j, n)
	a.fetch = f
	return a
}

// finish is done after the fetch.
func (h *th) finish(w string, j target.JobID, n int) attempt {
	var a attempt
	a.work = h.work(w, j, n, target.Done)
	tx := h.begin()
	a.effect = h.effect(w, j, n, tx, true)
	a.complete = h.complete(w, j, tx, target.Completed)
	a.commit = h.commit(w, j, tx)
	a.report = h.refused(w, j, target.Done, target.Completed, n)
	return a
}

// superseded: w1 fetches j1 for attempt 1, the rescuer takes it back
// (its first error, retried in 1s) and, once due, w2 fetches it for
// attempt 2 while w1 still works it: an exposure, once w1's next op shows
// it still at work.
func (h *th) superseded(max int) (first, second uint64) {
	h.insertMax(1, "d1", max)
	first = h.fetch("w1", 1, 1)
	h.rescued(1, 1, sec)
	second = h.fetch("w2", 1, 2)
	return first, second
}

// row adds job j's row to the snapshot as its first insert made it, now
// st at attempt n.
func (h *th) row(j target.JobID, st target.State, n int) *target.Job {
	in := h.jobs[j]
	h.snap.Jobs = append(h.snap.Jobs, target.Job{ID: j, Kind: in.Kind2, Args: in.Args, State: st, Attempt: n,
		MaxAttempts: in.MaxAttempts, Unique: in.Unique})
	return &h.snap.Jobs[len(h.snap.Jobs)-1]
}

// stored adds to the snapshot the effect w wrote for attempt n of j.
func (h *th) stored(j target.JobID, n int, w string) *target.Effect {
	a := h.jobs[j].Args
	h.snap.Effects = append(h.snap.Effects, target.Effect{Seq: int64(len(h.snap.Effects) + 1), Job: j, Attempt: n, Worker: w,
		Key: h.key(j), Tenant: a.Tenant, Doc: a.Doc})
	return &h.snap.Effects[len(h.snap.Effects)-1]
}

// expect adds a violation the checks must report under both feeds,
// proved by the ops seqs.
func (h *th) expect(inv string, j target.JobID, msg string, seqs ...uint64) {
	h.want = append(h.want, tviol{inv: inv, job: model.JobID(j), events: seqs, msg: msg})
}

// onlyComplete adds a violation only a complete feed supports: the
// partial feed's report must lack it.
func (h *th) onlyComplete(inv string, j target.JobID, msg string, seqs ...uint64) {
	h.want = append(h.want, tviol{inv: inv, job: model.JobID(j), events: seqs, msg: msg, only: "complete"})
}

// onlyPartial adds a violation only the partial feed reports (where the
// complete one reports the fact otherwise).
func (h *th) onlyPartial(inv string, j target.JobID, msg string, seqs ...uint64) {
	h.want = append(h.want, tviol{inv: inv, job: model.JobID(j), events: seqs, msg: msg, only: "partial"})
}

// exposure expects second's fetch f2 of j while first, fetched at f1,
// still held it; the complete feed shows it by first's report or crash
// rel (0: it never ended), the partial one by last (0: not at all).
func (h *th) exposure(j target.JobID, first, second string, f1, f2, rel, last uint64) {
	h.exp = append(h.exp, texp{x: invariants.Exposure{Job: j, First: first, Second: second, Ops: []uint64{f1, f2}}, complete: rel, partial: last})
}

// exposureComplete expects an exposure only a complete history shows: no
// op the partial one keeps shows first still at work after f2.
func (h *th) exposureComplete(j target.JobID, first, second string, f1, f2, rel uint64) {
	h.exp = append(h.exp, texp{x: invariants.Exposure{Job: j, First: first, Second: second, Ops: []uint64{f1, f2}}, complete: rel,
		onlyComplete: true})
}

// tcase is one fixture: run writes it, feed (nil: none) changes the
// runner's feed, for both feeds.
type tcase struct {
	name string
	feed func(*invariants.TargetFeed)
	run  func(h *th)
}

// feedNames are the two feeds every fixture runs under.
var feedNames = []string{"complete", "partial"}

// checkTarget runs each case under both feeds and compares every
// violation and exposure of each report with the case's, in order.
func checkTarget(t *testing.T, cases []tcase) {
	t.Helper()
	for _, c := range cases {
		for _, name := range feedNames {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				h := newTH()
				c.run(h)
				if diff := verdict(h, name, c.feed); diff != "" {
					t.Error(diff)
				}
			})
		}
	}
}

// partialForm is h's history as real processes record it: each op in an
// interval of 8ms ending at its time, without the lines such a history
// lacks (a queue's completer and maintenance record nothing).
func partialForm(ops []target.Op) []invariants.TargetOp {
	var out []invariants.TargetOp
	for _, o := range ops {
		switch o.Kind {
		case target.OpReport, target.OpStuck, target.OpRescue, target.OpSchedule, target.OpQuiesce:
			continue
		}
		out = append(out, invariants.TargetOp{Op: o, T0: o.T - 8*tms})
	}
	return out
}

// feedFor is the feed named: the runner's (changed by change) made
// complete, or partial: every insert and retry recorded, the outcomes its
// handlers reported declared.
func feedFor(name string, ops []target.Op, change func(*invariants.TargetFeed)) invariants.TargetFeed {
	f := runnerFeed()
	if name == "complete" {
		f.Complete = true
	} else {
		f.Recorded = []target.OpKind{target.OpInsert, target.OpRetry}
		f.Outcomes = []target.Outcome{}
		for _, o := range ops {
			if o.Kind == target.OpWork && !slices.Contains(f.Outcomes, o.Outcome) {
				f.Outcomes = append(f.Outcomes, o.Outcome)
			}
		}
	}
	if change != nil {
		change(&f)
	}
	return f
}

// run is the report of h's history under the feed named.
func (h *th) run(name string, change func(*invariants.TargetFeed)) invariants.TargetReport {
	f := feedFor(name, h.ops, change)
	if name == "complete" {
		return invariants.CheckTarget(invariants.CompleteHistory(h.ops), h.snap, f)
	}
	return invariants.CheckTarget(partialForm(h.ops), h.snap, f)
}

// verdict is what the report of h's history under the feed named gets
// wrong ("": nothing).
func verdict(h *th, name string, change func(*invariants.TargetFeed)) string {
	rep := h.run(name, change)
	var want []tviol
	for _, w := range h.want {
		if w.only == "" || w.only == name {
			want = append(want, w)
		}
	}
	var b strings.Builder
	if !violationsMatch(rep.Violations, want) {
		fmt.Fprintf(&b, "%s feed: got %d violations:\n", name, len(rep.Violations))
		for _, v := range rep.Violations {
			fmt.Fprintf(&b, "  %v (job %d)\n", v, v.Job)
		}
		fmt.Fprintf(&b, "want %d:\n", len(want))
		for _, w := range want {
			fmt.Fprintf(&b, "  %s: job %d, events %v, message containing %q\n", w.inv, w.job, w.events, w.msg)
		}
	}
	var exp []invariants.Exposure
	for _, e := range h.exp {
		x := e.x
		x.Ops = slices.Clone(x.Ops)
		last := e.complete
		if name == "partial" {
			last = e.partial
			if e.onlyComplete {
				continue
			}
		}
		if last != 0 {
			x.Ops = append(x.Ops, last)
		}
		exp = append(exp, x)
	}
	if !slices.EqualFunc(rep.Exposures, exp, func(a, b invariants.Exposure) bool {
		return a.Job == b.Job && a.First == b.First && a.Second == b.Second && slices.Equal(a.Ops, b.Ops)
	}) {
		fmt.Fprintf(&b, "%s feed: exposures %+v, want %+v\n", name, rep.Exposures, exp)
	}
	return b.String()
}

func violationsMatch(got []invariants.Violation, want []tviol) bool {
	return slices.EqualFunc(got, want, func(g invariants.Violation, w tviol) bool {
		return g.Invariant == w.inv && g.Job == w.job && slices.Equal(g.Events, w.events) && strings.Contains(g.Message, w.msg)
	})
}

// happy is the realistic path of one document: inserted, fetched,
// completed with its effect in one transaction, read back so.
func happy(h *th) attempt {
	h.insert(1, "d1")
	a := h.done("w1", 1, 1)
	h.row(1, target.Completed, 1)
	h.stored(1, 1, "w1")
	return a
}

func TestTargetCheckNames(t *testing.T) {
	want := []string{"target-final-kept", "target-attempts", "target-unique", "target-retry-timing", "target-effect-once",
		"target-tenant-isolation", "target-consistency", "target-drained"}
	if got := invariants.TargetChecks(); !slices.Equal(got, want) {
		t.Errorf("TargetChecks() = %q, want %q", got, want)
	}
}

func TestTargetHappyPath(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "one document, transactional", run: func(h *th) { happy(h) }},
		{name: "an empty run", run: func(h *th) {}},
	})
}

func TestTargetFinalKept(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: an operator retry brings a discarded job back", run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			h.report("w1", 1, target.Errored, target.Discarded, 1, 0) // its last attempt
			h.retry(1, target.Available)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2).MaxAttempts = 2 // the policy: a job retried at its last attempt gets one more
			h.stored(1, 2, "w2")
		}},
		{name: "holds: an operator retry brings a cancelled job back", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			h.retry(1, target.Available)
			h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
		}},
		{name: "fails: a completed job fetched again", feed: notDrained, run: func(h *th) {
			a := happy(h)
			h.snap.Jobs[0].Attempt, h.snap.Jobs[0].State = 2, target.Running
			f := h.fetch("w2", 1, 2)
			h.expect(invariants.TargetFinalKept, 1,
				"j1 was completed (complete_tx by w1) and no operator asked it to run again, yet it was fetched again by w2", a.complete, f)
		}},
		{name: "fails: a cancelled job fetched again without an operator", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			r := h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			f := h.fetch("w2", 1, 2)
			h.row(1, target.Running, 2)
			h.onlyComplete(invariants.TargetFinalKept, 1, "j1 was cancelled (report by w1) and no operator asked it to run again, yet it was fetched again by w2",
				r, f)
		}},
		{name: "fails: the rescuer takes back a completed job", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			a := h.done("w1", 1, 1)
			s := h.stuck(1, 1)
			r := h.rescue(1, target.Retryable, h.next()+sec)
			h.row(1, target.Retryable, 1)
			h.stored(1, 1, "w1")
			// One violation per escape: from the stuck read on, the job
			// is followed as running, and its rescue is ordinary.
			h.onlyComplete(invariants.TargetFinalKept, 1, "j1 was completed (complete_tx by w1) and no operator asked it to run again, yet the rescuer found it running",
				a.complete, s)
			_ = r
			// A partial history lacks the rescuer's ops: the database shows it.
			h.onlyPartial(invariants.TargetFinalKept, 1, "j1 was completed (complete_tx by w1); the database says retryable", a.complete, a.commit)
		}},
		{name: "fails: a second report changes a completed job", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			h.effect("w1", 1, 1, 0, true)
			r1 := h.report("w1", 1, target.Done, target.Completed, 1, 0)
			r2 := h.report("w1", 1, target.Errored, target.Retryable, 1, h.next()+sec)
			h.row(1, target.Retryable, 1)
			h.stored(1, 1, "w1")
			h.onlyComplete(invariants.TargetFinalKept, 1, "j1 was completed (report by w1) and no operator asked it to run again, yet w1's report changed it to retryable",
				r1, r2)
		}},
		{name: "fails: the database lost a completion", feed: notDrained, run: func(h *th) {
			a := happy(h)
			h.snap.Jobs[0].State = target.Available
			h.expect(invariants.TargetFinalKept, 1, "j1 was completed (complete_tx by w1); the database says available", a.complete, a.commit)
		}},
	})
}

func TestTargetAttempts(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: a snooze gives its attempt back", run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.snoozed("w1", 1, 1, 5*sec)
			h.report("w1", 1, target.Snooze, target.Scheduled, 0, h.next()+5*sec)
			h.scheduled(1)
			h.done("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
		}},
		{name: "fails: fetched beyond max_attempts", run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Retryable, 1, h.next()+sec) // should have been discarded
			h.scheduled(1)
			f := h.fetch("w2", 1, 2)
			h.finish("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
			// Reported in check order: attempts before consistency, though found after.
			h.expect(invariants.TargetAttempts, 1, "j1 fetched for attempt 2 of at most 1", 1, f)
			h.expect(invariants.TargetAttempts, 1, "the database has j1 at attempt 2 of 1; the history says at most 1", 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1 reported error on j1 (attempt 1 of 1) and the queue made it retryable, not discarded", r)
		}},
		{name: "fails: the database changed max_attempts", run: func(h *th) {
			happy(h)
			h.snap.Jobs[0].MaxAttempts = 5
			h.expect(invariants.TargetAttempts, 1, "the database has j1 at attempt 1 of 5; the history says at most 3", 1)
		}},
	})
}

func TestTargetUnique(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: a duplicate skipped while the job lives", run: func(h *th) {
			h.insert(1, "d1")
			h.insertOp(target.Op{Job: 1, Args: acme("d1"), MaxAttempts: 3, Unique: true, Skipped: true})
			h.done("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
		}},
		{name: "holds: a new job once the first was cancelled", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			h.insert(2, "d1")
			h.done("w2", 2, 1)
			h.row(1, target.Cancelled, 1)
			h.row(2, target.Completed, 1)
			h.stored(2, 1, "w2")
		}},
		{name: "holds: an operator's retry refused while a newer job holds the args", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			h.insert(2, "d1")
			h.done("w2", 2, 1)
			h.add(target.Op{Kind: target.OpRetry, Actor: "operator", Job: 1, State: target.Cancelled, Err: "unique_conflict"})
			h.row(1, target.Cancelled, 1)
			h.row(2, target.Completed, 1)
			h.stored(2, 1, "w2")
		}},
		{name: "fails: an operator's retry refused as a unique conflict with no live twin", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			r := h.add(target.Op{Kind: target.OpRetry, Actor: "operator", Job: 1, State: target.Cancelled, Err: "unique_conflict"})
			h.row(1, target.Cancelled, 1)
			h.expect(invariants.TargetUnique, 1, "an operator's retry of j1 was refused as a unique conflict, but no live job has its args", r)
		}},
		{name: "fails: an operator's retry brings a job back beside its live twin", feed: notDrained, run: func(h *th) {
			i1 := h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			i2 := h.insert(2, "d1")
			r := h.retry(1, target.Available)
			h.row(1, target.Available, 1)
			h.row(2, target.Available, 0)
			h.onlyComplete(invariants.TargetUnique, 1, "an operator's retry brought j1 back although j2, with the same args, is available", i2, r)
			h.onlyPartial(invariants.TargetUnique, 2, "j1 and j2, unique with the same args, are available and available", i1, i2)
		}},
		{name: "fails: a second job for args a live job has", feed: notDrained, run: func(h *th) {
			i1 := h.insert(1, "d1")
			i2 := h.insert(2, "d1")
			h.row(1, target.Available, 0)
			h.row(2, target.Available, 0)
			h.onlyComplete(invariants.TargetUnique, 2, "a unique insert created j2 although j1, with the same args, is available", i1, i2)
			h.onlyPartial(invariants.TargetUnique, 2, "j1 and j2, unique with the same args, are available and available", i1, i2)
		}},
		{name: "fails: skipped as a duplicate of a cancelled job", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			r := h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			s := h.insertOp(target.Op{Job: 1, Args: acme("d1"), MaxAttempts: 3, Unique: true, Skipped: true})
			h.row(1, target.Cancelled, 1)
			h.onlyComplete(invariants.TargetUnique, 1, "a unique insert was skipped as a duplicate of j1, which is cancelled (not a unique state)", r, s)
		}},
		{name: "fails: skipped as a duplicate of other args", run: func(h *th) {
			i := h.insert(1, "d1")
			s := h.insertOp(target.Op{Job: 1, Args: acme("d2"), MaxAttempts: 3, Unique: true, Skipped: true})
			h.done("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.expect(invariants.TargetUnique, 1, "a unique insert was skipped as a duplicate of j1, whose kind or args differ", i, s)
		}},
		{name: "fails: skipped without unique options", run: func(h *th) {
			h.insert(1, "d1")
			s := h.insertOp(target.Op{Job: 1, Args: acme("d1"), MaxAttempts: 3, Skipped: true})
			h.done("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.expect(invariants.TargetUnique, 1, "an insert without unique options was skipped as a duplicate of j1", s)
		}},
		{name: "fails: skipped as a duplicate of a job no insert created", run: func(h *th) {
			s := h.insertOp(target.Op{Job: 7, Args: acme("d1"), MaxAttempts: 3, Unique: true, Skipped: true})
			h.expect(invariants.TargetUnique, 7, "a unique insert was skipped as a duplicate of j7, which no insert created", s)
		}},
	})
}

func TestTargetRetryTiming(t *testing.T) {
	// backedOff: j1's first attempt errs and is retried after its
	// delay (1s), its second also (16s), and its third completes.
	backedOff := func(h *th) {
		h.insert(1, "d1")
		h.fetch("w1", 1, 1)
		h.erred("w1", 1, 1, 1)
		h.scheduled(1)
		h.fetch("w1", 1, 2)
		h.erred("w1", 1, 2, 2)
		h.scheduled(1)
		h.done("w2", 1, 3)
		h.row(1, target.Completed, 3)
		h.stored(1, 3, "w2")
	}
	checkTarget(t, []tcase{
		{name: "holds: retries within the policy, fetched when due", run: backedOff},
		{name: "holds: a retry due within the scheduler's interval made available at once", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			h.report("w1", 1, target.Errored, target.Available, 1, h.next()+sec)
			h.whenDue()
			h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
		}},
		{name: "fails: fetched before its retry was due", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			r := h.erred("w1", 1, 1, 1) // at 0.040s, due at 1.040s
			h.at(540 * tms)
			a := h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1 was fetched at 0.540s, before 1.040s, the time report set for its next run", r, a.fetch)
		}},
		{name: "fails: a backoff outside the policy", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Retryable, 1, h.next()+5*sec)
			h.scheduled(1)
			h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1's retry after error 1 is due in 5.000s, outside the policy's [0.900s, 1.100s]", r)
		}},
		{name: "holds: a backoff outside the policy, with no policy to check", feed: noBackoff, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			h.report("w1", 1, target.Errored, target.Retryable, 1, h.next()+5*sec)
			h.scheduled(1)
			h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
		}},
		{name: "fails: the scheduler made a retry available early", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			r := h.erred("w1", 1, 1, 1)
			h.at(540 * tms)
			s := h.schedule(1, target.Available)
			h.whenDue()
			h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "the scheduler made j1 available at 0.540s, before 1.040s, the time report set", r, s)
		}},
		{name: "fails: fetched before the time a rescue set", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.stuck(1, 1)
			r := h.rescue(1, target.Retryable, h.next()+sec)
			f := h.fetch("w2", 1, 2)
			h.finish("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "the time rescue set for its next run", r, f)
		}},
	})
}

// TestTargetZombie: a worker whose attempt another worker's fetch
// superseded reports as its own fetch let it: with the errors and the
// attempt the row had then.
func TestTargetZombie(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: its retry is timed by the errors its fetch saw", run: func(h *th) {
			f1, f2 := h.superseded(3) // the row has 1 error now; w1's fetch saw none
			w := h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Retryable, 2, h.next()+backoff(1))
			h.exposure(1, "w1", "w2", f1, f2, r, w)
			h.work("w2", 1, 2, target.Done)
			h.refused("w2", 1, target.Done, target.Retryable, 2)
			h.scheduled(1)
			h.done("w3", 1, 3)
			h.row(1, target.Completed, 3)
			h.stored(1, 3, "w3")
		}},
		{name: "fails: its retry timed by the row's errors, not its own", run: func(h *th) {
			f1, f2 := h.superseded(3)
			w := h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Retryable, 2, h.next()+backoff(2))
			h.exposure(1, "w1", "w2", f1, f2, r, w)
			h.work("w2", 1, 2, target.Done)
			h.refused("w2", 1, target.Done, target.Retryable, 2)
			h.scheduled(1)
			h.done("w3", 1, 3)
			h.row(1, target.Completed, 3)
			h.stored(1, 3, "w3")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1's retry after error 1 is due in 16.000s, outside the policy's [0.900s, 1.100s]", r)
		}},
		{name: "holds: its error retries though the row is at its last attempt", feed: notDrained, run: func(h *th) {
			f1, f2 := h.superseded(2) // w1's fetch saw attempt 1 of 2; w2's is attempt 2 of 2
			w := h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Retryable, 2, h.next()+backoff(1))
			h.exposure(1, "w1", "w2", f1, f2, r, w)
			h.row(1, target.Retryable, 2)
		}},
		{name: "fails: its error discarded, as if at the row's last attempt", feed: notDrained, run: func(h *th) {
			f1, f2 := h.superseded(2)
			w := h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Discarded, 2, 0)
			h.exposure(1, "w1", "w2", f1, f2, r, w)
			h.row(1, target.Discarded, 2)
			// No backoff check: the queue did not retry.
			h.onlyComplete(invariants.TargetConsistency, 1, "w1 reported error on j1 (attempt 2 of 2) and the queue made it discarded, not retryable", r)
		}},
		{name: "holds: its error discarded at its fetch's last attempt, though an operator's retry raised the max since", feed: notDrained,
			run: func(h *th) { zombieAfterRetry(h, target.Discarded, 0) }},
		{name: "fails: its error retried by the raised max its fetch never saw", feed: notDrained, run: func(h *th) {
			r := zombieAfterRetry(h, target.Retryable, h.next()+backoff(2))
			h.onlyComplete(invariants.TargetConsistency, 1, "w1 reported error on j1 (attempt 2 of 2) and the queue made it retryable, not discarded", r)
		}},
	})
}

// zombieAfterRetry is w1 holding attempt 1 of 1 of j1 while the rescuer
// discards it, an operator retries it (max attempts 2) and w2 fetches it;
// then w1 reports an error, which the queue makes st, due at. It returns
// the report.
func zombieAfterRetry(h *th, st target.State, at target.Time) uint64 {
	h.insertMax(1, "d1", 1)
	f1 := h.fetch("w1", 1, 1)
	h.stuck(1, 1)
	h.rescue(1, target.Discarded, 0)
	h.retry(1, target.Available)
	f2 := h.fetch("w2", 1, 2)
	w := h.work("w1", 1, 1, target.Errored)
	r := h.report("w1", 1, target.Errored, st, 2, at)
	h.exposure(1, "w1", "w2", f1, f2, r, w)
	h.row(1, st, 2).MaxAttempts = 2
	return r
}

func TestTargetExposures(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "two workers hold one job: counted, not a violation", run: func(h *th) {
			f1, f2 := h.superseded(3)
			h.finish("w2", 1, 2)
			w := h.work("w1", 1, 1, target.Done)
			r := h.refused("w1", 1, target.Done, target.Completed, 2)
			h.exposure(1, "w1", "w2", f1, f2, r, w)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
		}},
		{name: "a worker that crashed holds nothing", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.rescued(1, 1, sec)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
		}},
		{name: "a worker fetching its job again is no exposure", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.rescued(1, 1, sec)
			h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
		}},
		{name: "three workers: each later fetch exposed to each holder", run: func(h *th) {
			f1, f2 := h.superseded(3)
			h.rescued(1, 2, backoff(2))
			f3 := h.fetch("w3", 1, 3)
			h.finish("w3", 1, 3)
			r1 := h.refused("w1", 1, target.Done, target.Completed, 3)
			r2 := h.refused("w2", 1, target.Done, target.Completed, 3)
			// The refused reports are the only ops that show w1 and w2 still
			// at work, and a partial history lacks them.
			h.exposureComplete(1, "w1", "w2", f1, f2, r1)
			h.exposureComplete(1, "w1", "w3", f1, f3, r1)
			h.exposureComplete(1, "w2", "w3", f2, f3, r2)
			h.row(1, target.Completed, 3)
			h.stored(1, 3, "w3")
		}},
	})
}

func TestTargetEffectOnce(t *testing.T) {
	// retried: w1 writes j1's effect at once (the at-least-once design)
	// and dies before its report; w2 runs attempt 2 and writes it again
	// (applied: not deduplicated) or finds its key taken.
	retried := func(applied bool) func(h *th) {
		return func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			e1 := h.effect("w1", 1, 1, 0, true)
			h.crash("w1", 1, "after_effect")
			h.rescued(1, 1, sec)
			h.fetch("w2", 1, 2)
			h.work("w2", 1, 2, target.Done)
			e2 := h.effect("w2", 1, 2, 0, applied)
			h.report("w2", 1, target.Done, target.Completed, 2, 0)
			h.row(1, target.Completed, 2)
			h.stored(1, 1, "w1")
			if applied {
				h.stored(1, 2, "w2")
				h.expect(invariants.TargetEffectOnce, 1, "document acme:d1:v1 has 2 effects (j1 attempt 1 by w1; j1 attempt 2 by w2)", e1, e2)
			}
		}
	}
	// orphan: w1 writes j1's effect at once and dies; the rescuer
	// discards the job (its last attempt).
	orphan := func(h *th) {
		h.insertMax(1, "d1", 1)
		h.fetch("w1", 1, 1)
		h.work("w1", 1, 1, target.Done)
		e := h.effect("w1", 1, 1, 0, true)
		h.crash("w1", 1, "after_effect")
		h.stuck(1, 1)
		h.rescue(1, target.Discarded, 0)
		h.row(1, target.Discarded, 1)
		h.stored(1, 1, "w1")
		h.expect(invariants.TargetEffectOnce, 1, "document acme:d1:v1 has an effect (j1 attempt 1) but no job of it completed", e)
	}
	checkTarget(t, []tcase{
		{name: "holds: one effect for a completed document", run: func(h *th) { happy(h) }},
		{name: "holds: a retried attempt finds its key taken", feed: notTransactional, run: retried(false)},
		{name: "fails: two effects for one document", feed: notTransactional, run: retried(true)},
		{name: "holds: two effects for one document, exactly once not promised", feed: func(f *invariants.TargetFeed) {
			notTransactional(f)
			notExactlyOnce(f)
		}, run: func(h *th) {
			retried(true)(h)
			h.want = nil
		}},
		{name: "fails: a completed document with no effect", run: func(h *th) {
			i := h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			r := h.report("w1", 1, target.Done, target.Completed, 1, 0)
			h.row(1, target.Completed, 1)
			h.onlyComplete(invariants.TargetEffectOnce, 1, "document acme:d1:v1 completed (j1) with no effect", r)
			h.onlyPartial(invariants.TargetEffectOnce, 1, "document acme:d1:v1 completed (j1) with no effect", i) // the report is not recorded
		}},
		{name: "holds: a completed document with no effect, exactly once not promised", feed: notExactlyOnce, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			h.report("w1", 1, target.Done, target.Completed, 1, 0)
			h.row(1, target.Completed, 1)
		}},
		{name: "holds: the outbox's consumer writes the effect, its source none", feed: outbox, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.insertOp(target.Op{Actor: "w1", Job: 2, Kind2: kindDeliver, Args: target.Args{Tenant: "acme", Doc: "d1", Version: 1, Source: 1},
				MaxAttempts: 3, Tx: tx})
			h.complete("w1", 1, tx, target.Completed)
			h.commit("w1", 1, tx)
			h.refused("w1", 1, target.Done, target.Completed, 1)
			h.fetch("w2", 2, 1)
			h.work("w2", 2, 1, target.Done)
			h.effect("w2", 2, 1, 0, true)
			h.report("w2", 2, target.Done, target.Completed, 1, 0)
			h.row(1, target.Completed, 1)
			h.row(2, target.Completed, 1)
			h.stored(2, 1, "w2")
		}},
		{name: "fails: an effect of a document none of whose jobs completed", run: orphan},
		{name: "holds: the same, where the design is not transactional", feed: notTransactional, run: func(h *th) {
			orphan(h)
			h.want = nil
		}},
		{name: "holds: the same, before the drain", feed: notDrained, run: func(h *th) {
			orphan(h)
			h.want = nil
		}},
	})
}

func TestTargetTenant(t *testing.T) {
	// twoTenants: acme's and beta's documents d1, each completed.
	twoTenants := func(h *th) (a, b attempt) {
		h.insert(1, "d1")
		h.insertOp(target.Op{Job: 2, Args: target.Args{Tenant: "beta", Doc: "d1", Version: 1}, MaxAttempts: 3, Unique: true})
		a = h.done("w1", 1, 1)
		b = h.done("w2", 2, 1)
		h.row(1, target.Completed, 1)
		h.row(2, target.Completed, 1)
		h.stored(1, 1, "w1")
		h.stored(2, 1, "w2")
		return a, b
	}
	checkTarget(t, []tcase{
		{name: "holds: two tenants, two keys", run: func(h *th) { twoTenants(h) }},
		{name: "holds: one tenant's key reused by its own retry", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			h.rollback("w1", 1, tx, "crash")
			h.crash("w1", 1, "after_effect")
			h.rescued(1, 1, sec)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
		}},
		{name: "fails: a key another tenant wrote first", run: func(h *th) {
			h.keys[2] = "acme:d1:v1" // beta's handler derived acme's key
			a, b := twoTenants(h)
			h.expect(invariants.TargetTenant, 2, "j2 (tenant beta) wrote its effect under key acme:d1:v1, which j1 of tenant acme wrote first",
				a.effect, b.effect)
		}},
		{name: "fails: an effect row of another tenant", run: func(h *th) {
			happy(h)
			h.snap.Effects[0].Tenant = "beta"
			h.expect(invariants.TargetTenant, 1, "effect 1 of j1 is tenant beta's document d1; the job is tenant acme's document d1", 1)
		}},
	})
}

// TestTargetTransactions: a handler's transactional ops count once its
// commit is seen, in the commit's place, and never after a rollback.
func TestTargetTransactions(t *testing.T) {
	// rolledBack: w1's effect and completion roll back with its crash;
	// the rescuer retries j1 and w2 completes it.
	rolledBack := func(h *th) attempt {
		h.insert(1, "d1")
		h.fetch("w1", 1, 1)
		h.work("w1", 1, 1, target.Done)
		tx := h.begin()
		h.effect("w1", 1, 1, tx, true)
		h.complete("w1", 1, tx, target.Completed)
		h.rollback("w1", 1, tx, "crash")
		h.crash("w1", 1, "before_commit")
		h.rescued(1, 1, sec)
		a := h.done("w2", 1, 2)
		h.row(1, target.Completed, 2)
		h.stored(1, 2, "w2")
		return a
	}
	// uncommitted: w1's transaction has its effect and completion, and
	// the run ends before its commit.
	uncommitted := func(h *th) uint64 {
		h.insert(1, "d1")
		f := h.fetch("w1", 1, 1)
		h.work("w1", 1, 1, target.Done)
		tx := h.begin()
		h.effect("w1", 1, 1, tx, true)
		h.complete("w1", 1, tx, target.Completed)
		h.row(1, target.Running, 1)
		return f
	}
	checkTarget(t, []tcase{
		{name: "holds: a rolled-back attempt leaves nothing", run: func(h *th) { rolledBack(h) }},
		{name: "fails: a rolled-back effect stored", run: func(h *th) {
			a := rolledBack(h)
			h.snap.Effects = nil
			h.stored(1, 1, "w1")
			h.stored(1, 2, "w2")
			h.expect(invariants.TargetEffectOnce, 1, "document acme:d1:v1 has 2 effects (j1 attempt 1 by w1; j1 attempt 2 by w2)", a.effect)
			// A partial history allows one write of a process that died, its line cut off.
			h.onlyComplete(invariants.TargetConsistency, 1, "the database holds 1 effects of j1 attempt 1 by w1; its history made 0 durable", 1)
		}},
		{name: "holds: nothing counts before the commit", feed: notDrained, run: func(h *th) { uncommitted(h) }},
		{name: "fails: a completion not committed leaves the job running", run: func(h *th) {
			f := uncommitted(h)
			h.expect(invariants.TargetDrained, 1, "j1 is still running at attempt 1 of 3 after the faults stopped and the drain ended (last fetched by w1 at 0.020s", f)
		}},
		{name: "fails: an effect not committed yet stored", feed: notDrained, run: func(h *th) {
			uncommitted(h)
			h.stored(1, 1, "w1")
			// A partial history may have lost the commit's line.
			h.onlyComplete(invariants.TargetConsistency, 1, "the database holds 1 effects of j1 attempt 1 by w1; its history made 0 durable", 1)
		}},
		{name: "holds: the job runs until the commit, then is completed", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			h.complete("w1", 1, tx, target.Completed)
			h.stuck(1, 1) // still running: the completion is not committed
			h.commit("w1", 1, tx)
			h.add(target.Op{Kind: target.OpRescue, Actor: "rescuer", Job: 1, State: target.Completed}) // found it no longer running
			h.refused("w1", 1, target.Done, target.Completed, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
		}},
		{name: "fails: a rolled-back completion is not one", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			h.complete("w1", 1, tx, target.Completed)
			h.rollback("w1", 1, tx, "crash")
			h.commit("w1", 1, tx) // a commit after the rollback commits nothing
			g := h.fetch("w2", 1, 2)
			h.exposureComplete(1, "w1", "w2", f, g, 0) // w1 never ended its attempt
			h.row(1, target.Running, 2)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 was fetched by w2 while running (fetched by w1), never rescued since", f, g)
		}},
		{name: "holds: an outbox insert rolled back creates no job", feed: func(f *invariants.TargetFeed) {
			outbox(f)
			notDrained(f)
		}, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.insertOp(target.Op{Actor: "w1", Job: 2, Kind2: kindDeliver, Args: target.Args{Tenant: "acme", Doc: "d1", Version: 1, Source: 1},
				MaxAttempts: 3, Tx: tx})
			h.stuck(1, 1)
			h.rescue(1, target.Retryable, h.next()+sec)
			h.complete("w1", 1, tx, target.Retryable) // the rescuer took it meanwhile
			h.rollback("w1", 1, tx, "stale_completion")
			h.refused("w1", 1, target.Errored, target.Retryable, 1)
			h.row(1, target.Retryable, 1)
		}},
	})
}

func TestTargetConsistency(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: the happy path", run: func(h *th) { happy(h) }},
		{name: "fails: an op names a job no insert returned", run: func(h *th) {
			f := h.fetch("w1", 9, 1)
			h.expect(invariants.TargetConsistency, 9, "fetch by w1 names j9, which no insert returned", f)
		}},
		{name: "fails: an insert returned a job an earlier insert created", run: func(h *th) {
			i1 := h.insert(1, "d1")
			i2 := h.insertOp(target.Op{Job: 1, Args: acme("d2"), MaxAttempts: 3, Unique: true})
			h.done("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.expect(invariants.TargetConsistency, 1, "an insert returned j1, which an earlier insert created", i1, i2)
		}},
		{name: "fails: a running job fetched again, never rescued", run: func(h *th) {
			h.insert(1, "d1")
			f1 := h.fetch("w1", 1, 1)
			f2 := h.fetch("w2", 1, 2)
			h.finish("w2", 1, 2)
			c := h.crash("w1", 1, "after_fetch")
			h.exposure(1, "w1", "w2", f1, f2, c, c)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
			// A partial history lacks the rescues: the job may have been taken back.
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 was fetched by w2 while running (fetched by w1), never rescued since", f1, f2)
		}},
		{name: "fails: fetched as an attempt the history does not count", run: func(h *th) {
			i := h.insert(1, "d1")
			f := h.fetch("w1", 1, 2)
			a := h.finish("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 fetched as attempt 2; the history counts 0 attempts before", i, f)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 at attempt 2; the history counts 1", a.commit)
		}},
		{name: "fails: a report the queue applied as another state", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			r := h.report("w1", 1, target.Done, target.Cancelled, 1, 0)
			h.row(1, target.Cancelled, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1 reported done on j1 (attempt 1 of 3) and the queue made it cancelled, not completed", r)
		}},
		{name: "fails: a report's attempt the history does not count", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Cancel)
			r := h.report("w1", 1, target.Cancel, target.Cancelled, 2, 0)
			h.row(1, target.Cancelled, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "after w1's report j1 is at attempt 2; the history counts 1", r)
		}},
		{name: "fails: a report refused though its worker held the job", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			r := h.refused("w1", 1, target.Done, target.Running, 1)
			h.row(1, target.Running, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1's report (done) on j1 was refused though it still held the job", f, r)
		}},
		{name: "fails: a rescue of a job fetched after the rescuer read it", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			s := h.stuck(1, 1)
			h.erred("w1", 1, 1, 1)
			h.scheduled(1)
			f := h.fetch("w2", 1, 2)
			r := h.rescue(1, target.Retryable, h.next()+backoff(2))
			h.work("w2", 1, 2, target.Done)
			h.refused("w2", 1, target.Done, target.Retryable, 2)
			h.scheduled(1)
			h.done("w3", 1, 3)
			h.row(1, target.Completed, 3)
			h.stored(1, 3, "w3")
			h.onlyComplete(invariants.TargetConsistency, 1, "the rescuer changed j1 to retryable although w2 fetched it after the rescuer read it as stuck", s, f, r)
		}},
		{name: "fails: the rescuer found running a job that was not", feed: notDrained, run: func(h *th) {
			i := h.insert(1, "d1")
			s := h.stuck(1, 0)
			h.row(1, target.Available, 0)
			h.onlyComplete(invariants.TargetConsistency, 1, "the rescuer found j1 running; the history has it available", i, s)
		}},
		{name: "fails: the rescuer discarded a job with attempts left", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.stuck(1, 1)
			r := h.rescue(1, target.Discarded, 0)
			h.row(1, target.Discarded, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "the rescuer made j1 (attempt 1 of 3) discarded, not retryable", r)
		}},
		{name: "fails: the scheduler made a running job available", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetch("w1", 1, 1)
			s := h.schedule(1, target.Available)
			h.row(1, target.Available, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "the scheduler made j1 available; the history has it running", f, s)
		}},
		{name: "fails: a transactional completion returned another state though running", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			c := h.complete("w1", 1, tx, target.Retryable)
			h.commit("w1", 1, tx)
			h.row(1, target.Running, 1)
			h.stored(1, 1, "w1")
			h.onlyComplete(invariants.TargetConsistency, 1, "completing j1 in a transaction returned retryable, though it was running (fetched by w1)", f, c)
		}},
		{name: "fails: completed in a transaction though the rescuer had taken it", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.stuck(1, 1)
			r := h.rescue(1, target.Retryable, h.next()+sec)
			a := h.finish("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 completed in w1's transaction though the history has it retryable", r, a.complete)
		}},
		{name: "fails: the database lost a job", feed: notDrained, run: func(h *th) {
			i := h.insert(1, "d1")
			h.expect(invariants.TargetConsistency, 1, "j1, inserted, is not in the database", i)
		}},
		{name: "fails: the database holds a job no insert returned", run: func(h *th) {
			happy(h)
			h.snap.Jobs = append(h.snap.Jobs, target.Job{ID: 5, Kind: kindDoc, Args: acme("d5"), State: target.Completed, MaxAttempts: 3})
			h.expect(invariants.TargetEffectOnce, 5, "document acme:d5:v1 completed (j5) with no effect")
			h.expect(invariants.TargetConsistency, 5, "the database holds j5, which no insert returned")
		}},
		{name: "fails: the database lost the unique option", run: func(h *th) {
			happy(h)
			h.snap.Jobs[0].Unique = false
			h.expect(invariants.TargetConsistency, 1, "the database has j1's kind, args or unique option other than its insert gave", 1)
		}},
		{name: "fails: the database has other args than the insert gave", run: func(h *th) {
			happy(h)
			h.snap.Jobs[0].Args.Version = 2
			h.expect(invariants.TargetConsistency, 1, "the database has j1's kind, args or unique option other than its insert gave", 1)
		}},
		{name: "fails: the database lost a durable effect", run: func(h *th) {
			a := happy(h)
			h.snap.Effects = nil
			h.expect(invariants.TargetEffectOnce, 1, "document acme:d1:v1 completed (j1) with no effect", a.complete)
			h.expect(invariants.TargetConsistency, 1, "w1 made 1 effects of j1 attempt 1 durable; the database holds 0", a.effect)
		}},
		{name: "fails: an effect row of a job no insert returned", run: func(h *th) {
			happy(h)
			h.snap.Effects = append(h.snap.Effects, target.Effect{Seq: 2, Job: 6, Attempt: 1, Worker: "w1", Tenant: "acme", Doc: "d6"})
			h.expect(invariants.TargetConsistency, 6, "effect 2 names j6, which neither an insert nor the database has")
		}},
	})
}

func TestTargetDrained(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: every job finished", run: func(h *th) { happy(h) }},
		{name: "holds: a job never fetched, before the drain", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.row(1, target.Available, 0)
		}},
		{name: "fails: a job never fetched", run: func(h *th) {
			i := h.insert(1, "d1")
			h.row(1, target.Available, 0).ScheduledAt = 10 * tms
			h.expect(invariants.TargetDrained, 1,
				"j1 is still available at attempt 0 of 3 after the faults stopped and the drain ended (available since 0.010s", i)
		}},
		{name: "fails: a job still running", run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.row(1, target.Running, 1)
			h.expect(invariants.TargetDrained, 1, "j1 is still running at attempt 1 of 3 after the faults stopped and the drain ended (last fetched by w1 at 0.020s", f)
		}},
		{name: "fails: a retry never made available", run: func(h *th) {
			f, r := retryLeft(h)
			h.onlyComplete(invariants.TargetDrained, 1, "j1 is still retryable at attempt 1 of 3 after the faults stopped and the drain ended (due at 1.040s, never made available)", r)
			h.onlyPartial(invariants.TargetDrained, 1, "j1 is still retryable at attempt 1 of 3 after the faults stopped and the drain ended (due at 1.040s)", f)
		}},
		// The drain's window ends at 1.040s: a retry due then is not the
		// drain's to run; one due a millisecond before it is.
		{name: "holds: a retry due when the drain's window ends", feed: drainUntil(1040 * tms), run: func(h *th) { retryLeft(h) }},
		{name: "fails: a retry due a millisecond before the drain's window ends", feed: drainUntil(1041 * tms), run: func(h *th) {
			f, r := retryLeft(h)
			h.onlyComplete(invariants.TargetDrained, 1, "j1 is still retryable at attempt 1 of 3 after the faults stopped and the drain ended (due at 1.040s, never made available)", r)
			h.onlyPartial(invariants.TargetDrained, 1, "j1 is still retryable at attempt 1 of 3 after the faults stopped and the drain ended (due at 1.040s)", f)
		}},
		{name: "fails: a job available when the drain's window ends", feed: drainUntil(10 * tms), run: func(h *th) {
			i := h.insert(1, "d1")
			h.row(1, target.Available, 0).ScheduledAt = 10 * tms
			h.expect(invariants.TargetDrained, 1,
				"j1 is still available at attempt 0 of 3 after the faults stopped and the drain ended (available since 0.010s", i)
		}},
	})
}

// retryLeft: w1's attempt of j1 errs, and the database ends with j1
// retryable, due at 1.040s; f is the fetch, r the report.
func retryLeft(h *th) (f, r uint64) {
	h.insert(1, "d1")
	f = h.fetch("w1", 1, 1)
	r = h.erred("w1", 1, 1, 1)
	h.row(1, target.Retryable, 1).ScheduledAt = h.due
	return f, r
}

// drainUntil: a run whose drain's window ends at t (TargetFeed.DrainUntil).
func drainUntil(t target.Time) func(*invariants.TargetFeed) {
	return func(f *invariants.TargetFeed) { f.DrainUntil = t }
}

// TestTargetEdges: histories an earlier CheckTarget judged wrongly (a
// scheduler's discard, a backoff where the queue did not retry, a row left
// unfinished read back finished, a completion of a discarded job, a
// rescue's backoff), with the verdict it must give.
func TestTargetEdges(t *testing.T) {
	for _, c := range []tcase{
		{name: "the scheduler's discard (a unique collision) leaves the job final", feed: both(notDrained, uniqueWhileDue), run: func(h *th) {
			i1 := h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.erred("w1", 1, 1, 1)
			i2 := h.insert(2, "d1") // j1 waits for its retry: not holding its args
			h.whenDue()
			s := h.schedule(1, target.Discarded)
			f := h.fetch("w2", 1, 2)
			h.row(1, target.Running, 2)
			h.row(2, target.Available, 0)
			h.onlyComplete(invariants.TargetFinalKept, 1, "j1 was discarded (schedule by scheduler) and no operator asked it to run again, yet it was fetched again by w2",
				s, f)
			h.expect(invariants.TargetUnique, 2, "j1 and j2, unique with the same args, are running and available", i1, i2)
		}},
		{name: "a backoff is checked only where the queue retried", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			r := h.report("w1", 1, target.Errored, target.Discarded, 1, 0)
			h.row(1, target.Discarded, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1 reported error on j1 (attempt 1 of 3) and the queue made it discarded, not retryable", r)
		}},
		{name: "a row the history left unfinished read back finished", feed: notExactlyOnce, run: func(h *th) {
			i := h.insert(1, "d1")
			h.row(1, target.Completed, 0)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1", i)
		}},
		{name: "a completion of a discarded job names the completion", run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.stuck(1, 1)
			r := h.rescue(1, target.Discarded, 0)
			a := h.finish("w1", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.onlyComplete(invariants.TargetFinalKept, 1, "j1 was discarded (rescue by rescuer)", r, a.complete)
		}},
		{name: "a rescue's backoff is within the policy", run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.stuck(1, 1)
			r := h.rescue(1, target.Retryable, h.next()+5*sec) // the policy: 1s ±10% after the first error
			h.scheduled(1)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "outside the policy's [0.900s, 1.100s]", r)
		}},
	} {
		checkTarget(t, []tcase{c})
	}
}
