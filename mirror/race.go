package mirror

import (
	"fmt"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Races: uniqueness that only concurrency exposes. The lockstep replay
// runs one operation at a time, so a store that deduplicates by reading
// first and writing after (no UNIQUE, or a conflict it does not check)
// agrees with the model on every seed and fails only when two actors do
// the same thing at once. So on PostgreSQL (SQLite's BEGIN IMMEDIATE
// runs one writer at a time: nothing can interleave) the first few
// events of each racing kind per seed are replayed twice at once: the
// actor's own operation and the same one on a second connection, held in
// step statement by statement (each waits before its statement n until
// the other reaches its own, or sqlstore.StepWait passes: a side blocked in the
// database on a row the other holds never comes). Exactly one of the two
// may create, apply or lease; the other must be told the winner's
// outcome. Both do the same thing with the same ids and times, so the
// store ends the same whichever wins, and the model's account still
// holds:
//
//   - an enqueue that created its job: both enqueue it; one creates, the
//     other is deduplicated to the same id;
//   - a commit that created its result: both commit it; one creates, the
//     other is deduplicated to the same event and value;
//   - a first delivery: the actor's Deliver and another consumer's Apply
//     of the same event; one applies it, the other is a duplicate;
//   - a lease of an ordered (FIFO) queue while another job is ready too:
//     two workers lease at once; one gets the head, the other none. A store that skipped the locked head
//     (SKIP LOCKED on an ordered queue) leases the next job instead, and
//     one that read the head without locking it leases it twice.

// racesPerKind bounds the races per kind of event and seed: each costs
// up to sqlstore.StepWait per statement on a correct store (its loser
// waits on the winner's row).
const racesPerKind = 2

// runRace runs fa on ca and fb on cb at once, held in step statement by
// statement. The goroutines and the wait live in sqlstore (the SQL
// backend, where they may): this package replays a seed in the
// scheduler's order and keeps the determinism rules.
func runRace(ca, cb Conn, fa, fb func()) { sqlstore.InStep(ca, cb, fa, fb) }

// race replays e as a race when it is one of the first racesPerKind of a
// racing kind this seed, on PostgreSQL; raced is false when it is not
// (the ordinary replay runs instead).
func (b *Backend) race(c Conn, e *model.Event) (raced bool, err error) {
	if b.name != sqlstore.Postgres || !racing(e, b.sys.Config().Ordered) || b.raced[e.Kind] >= racesPerKind ||
		e.Kind == model.EvLease && !b.anotherReady(e) {
		return false, nil
	}
	b.raced[e.Kind]++
	other, err := b.open()
	if err != nil {
		return true, err
	}
	defer other.Close()
	switch e.Kind {
	case model.EvEnqueue:
		return true, b.raceEnqueue(c, other, e)
	case model.EvCommit:
		return true, b.raceCommit(c, other, e)
	case model.EvApply:
		return true, b.raceApply(c, other, e)
	}
	return true, b.raceLease(c, other, e)
}

// racing reports whether e is an event the mirror races: one that creates
// or applies what must be unique, or an ordered queue's lease.
func racing(e *model.Event, ordered bool) bool {
	switch e.Kind {
	case model.EvEnqueue, model.EvCommit:
		return e.OK && e.Code == model.CodeNone
	case model.EvApply:
		return e.OK
	case model.EvLease:
		return ordered && e.OK && e.Code == model.CodeNone
	}
	return false
}

// anotherReady reports whether a job besides e's is ready at e's time in
// the model (live, and visible or its lease expired): the job a store
// that skipped the locked head of an ordered queue would lease instead.
// Ordered leases are raced only then, or a skipping store would find
// nothing to take and pass.
func (b *Backend) anotherReady(e *model.Event) bool {
	for id := model.JobID(1); int(id) <= b.sys.Jobs(); id++ {
		j := b.sys.JobRef(id)
		if j == nil || id == e.Job {
			continue
		}
		switch j.State {
		case model.Pending, model.RetryWait:
			if j.VisibleAt <= e.At {
				return true
			}
		case model.Leased:
			if j.LeaseUntil <= e.At {
				return true
			}
		}
	}
	return false
}

// oneWinner compares a race's two outcomes: no error, exactly one won,
// and each side's answer is want.
func (b *Backend) oneWinner(e *model.Event, what string, won [2]bool, got [2]string, errs [2]error, want string) error {
	for side := range 2 {
		if errs[side] != nil {
			return b.differ(e, fmt.Sprintf("%s racing another: error: %v", what, errs[side]), want)
		}
	}
	switch {
	case won[0] == won[1]:
		return b.differ(e, fmt.Sprintf("%s racing another: both %s", what, winsOrNot(won[0])), want+", once")
	case got[0] != want || got[1] != want:
		return b.differ(e, fmt.Sprintf("%s racing another: %s and %s", what, got[0], got[1]), want+" to both")
	}
	return nil
}

func winsOrNot(won bool) string {
	if won {
		return "won"
	}
	return "lost"
}

func (b *Backend) raceEnqueue(c, other Conn, e *model.Event) error {
	nj, ok := b.newJob(e)
	if !ok {
		return b.differ(e, "-", "a job the model does not hold")
	}
	var ids [2]model.JobID
	var won [2]bool
	var errs [2]error
	runRace(c, other,
		func() { ids[0], won[0], errs[0] = c.Enqueue(b.ctx, nj) },
		func() { ids[1], won[1], errs[1] = other.Enqueue(b.ctx, nj) })
	got := [2]string{"job " + ids[0].String(), "job " + ids[1].String()}
	if err := b.oneWinner(e, "an enqueue of "+nj.Key, won, got, errs, "job "+e.Job.String()); err != nil {
		return err
	}
	return b.enqueueConflict(c, e, nj)
}

func (b *Backend) raceCommit(c, other Conn, e *model.Event) error {
	j := b.sys.JobRef(e.Job)
	r, ok := b.sys.Committed(e.Key, e.Stage)
	if j == nil || !ok {
		return b.differ(e, "-", "a job and result the model holds")
	}
	req := sqlstore.CommitReq{
		Job: e.Job, Fence: j.Fence, Tenant: e.Tenant, Key: e.Key, Stage: e.Stage,
		PayloadHash: j.PayloadHash, Value: r.Value, EventID: e.EventID, Now: e.At,
	}
	var res [2]sqlstore.Committed
	var errs [2]error
	runRace(c, other,
		func() { res[0], errs[0] = c.Commit(b.ctx, req) },
		func() { res[1], errs[1] = other.Commit(b.ctx, req) })
	var won [2]bool
	var got [2]string
	for side := range 2 {
		won[side] = !res[side].Deduped
		got[side] = fmt.Sprintf("%s value=%x", res[side].EventID, res[side].Value)
	}
	what := "a commit of " + model.StageKey(req.Key, req.Stage)
	if err := b.oneWinner(e, what, won, got, errs, fmt.Sprintf("%s value=%x", e.EventID, r.Value)); err != nil {
		return err
	}
	return b.commitConflict(c, e, req)
}

func (b *Backend) raceApply(c, other Conn, e *model.Event) error {
	if err := b.readBroker(c, e); err != nil {
		return err
	}
	b.read = max(b.read, e.N2)
	var events [2]model.EventID
	var won [2]bool
	var errs [2]error
	runRace(c, other,
		func() { events[0], won[0], errs[0] = c.Deliver(b.ctx, e.N2, e.At) },
		func() { won[1], errs[1] = other.Apply(b.ctx, e.EventID, e.At) })
	events[1] = e.EventID // Apply is given the event: it answers only applied or not
	got := [2]string{"event " + events[0].String(), "event " + events[1].String()}
	if err := b.oneWinner(e, fmt.Sprintf("a delivery of message %d", e.N2), won, got, errs, "event "+e.EventID.String()); err != nil {
		return err
	}
	b.applied[e.EventID] = true
	return nil
}

func (b *Backend) raceLease(c, other Conn, e *model.Event) error {
	j := b.sys.JobRef(e.Job)
	if j == nil {
		return b.differ(e, "-", "a job the model does not hold")
	}
	b.takeFail(e.Actor, 0)
	req := sqlstore.LeaseReq{Worker: e.Actor.String(), Now: e.At, LeaseUntil: e.At + e.N, Ordered: true}
	var ls [2]sqlstore.Leased
	var won [2]bool
	var errs [2]error
	runRace(c, other,
		func() { ls[0], won[0], errs[0] = c.LeaseNext(b.ctx, req) },
		func() { ls[1], won[1], errs[1] = other.LeaseNext(b.ctx, req) })
	want := fmt.Sprintf("%s fence=%d attempt=%d stage=%s", e.Job, e.Fence, e.Attempt, j.Stage)
	var got [2]string
	for side := range 2 {
		got[side] = want // the loser leases nothing: nothing to compare
		if won[side] {
			got[side] = fmt.Sprintf("%s fence=%d attempt=%d stage=%s", ls[side].Job, ls[side].Fence, ls[side].Attempt, ls[side].Stage)
		}
	}
	return b.oneWinner(e, "an ordered lease", won, got, errs, want)
}
