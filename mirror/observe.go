package mirror

import (
	"errors"
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/sqlstore"
)

// Observe implements sim.Backend: it replays one model event against the
// store and compares the outcomes. Events with nothing durable in them
// (accepts, status queries, work, faults, breaker changes, phases) pass.
func (b *Backend) Observe(e *model.Event) error {
	b.record(e)
	switch e.Kind {
	case model.EvCrash:
		var err error
		switch e.Boundary {
		case model.AfterExtract:
			err = b.tornCommit(e)
		case model.ConsumerAfterReceive:
			err = b.tornDeliver(e)
		}
		if err != nil {
			return err
		}
		return b.crash(e.Actor)
	case model.EvWorkFail:
		b.noteFail(e)
		return nil
	case model.EvRestart:
		_, err := b.conn(e.Actor) // the new incarnation connects
		return err
	case model.EvEnqueue, model.EvLease, model.EvCancelAtLease, model.EvExhausted,
		model.EvHeartbeat, model.EvAdvance, model.EvAck, model.EvRetry, model.EvDead, model.EvCancel,
		model.EvCommit, model.EvPublish, model.EvMarkPublished, model.EvApply, model.EvDLQWrite,
		model.EvRedrive, model.EvReprocess:
		if err := b.probe(e); err != nil {
			return err
		}
		c, err := b.conn(e.Actor)
		if err != nil {
			return err
		}
		if raced, err := b.race(c, e); raced {
			return err
		}
		return b.replay(c, e)
	}
	return nil
}

// replay runs the event's operation on c.
func (b *Backend) replay(c Conn, e *model.Event) error {
	ctx := b.ctx
	switch e.Kind {
	case model.EvEnqueue:
		return b.enqueue(c, e)
	case model.EvLease:
		if e.Code == model.CodeBreakerOpen {
			return nil // the breaker is the model's, not the store's
		}
		b.takeFail(e.Actor, 0)
		return b.lease(c, e)
	case model.EvCancelAtLease:
		return b.fenced(e, c.Cancel(ctx, e.Job, 0, e.Code, e.At))
	case model.EvExhausted:
		return b.fenced(e, c.MarkDead(ctx, e.Job, 0, e.Code, e.At))
	case model.EvHeartbeat:
		return b.fenced(e, c.Heartbeat(ctx, e.Job, e.Fence, e.At+e.N))
	case model.EvAdvance:
		return b.fenced(e, c.Advance(ctx, e.Job, e.Fence, e.Stage))
	case model.EvAck:
		return b.fenced(e, c.Ack(ctx, e.Job, e.Fence, e.At))
	case model.EvRetry:
		return b.fenced(e, c.Retry(ctx, e.Job, e.Fence, e.At+e.N, e.Code))
	case model.EvDead:
		// The envelope is already written (EvDLQWrite, the model's first
		// step): this is the second, the job marked dead. (The store's Dead,
		// both in one transaction, would write the row again with this
		// step's time: the row's time and redrive count are compared.)
		return b.fenced(e, c.MarkDead(ctx, e.Job, e.Fence, e.Code, e.At))
	case model.EvCancel:
		return b.fenced(e, c.Cancel(ctx, e.Job, e.Fence, e.Code, e.At))
	case model.EvCommit:
		return b.commit(c, e)
	case model.EvPublish:
		return b.publish(c, e)
	case model.EvMarkPublished:
		if err := b.agree(e, "marked", c.MarkPublished(ctx, e.EventID, e.At)); err != nil {
			return err
		}
		// Marking an event no commit made is refused (the model has no
		// such row to mark).
		if err := c.MarkPublished(ctx, model.EventID(b.sys.Rows()+1), e.At); err == nil {
			return b.differ(e, fmt.Sprintf("event %d, never committed, marked", b.sys.Rows()+1), "refused: no outbox event")
		}
		return nil
	case model.EvApply:
		return b.apply(c, e)
	case model.EvDLQWrite:
		return b.dlqWrite(c, e)
	case model.EvRedrive:
		return b.redrive(c, e)
	case model.EvReprocess:
		return b.reprocess(c, e)
	}
	return nil
}

// newJob is the store's form of the job e enqueues, from the model's
// record of it (false when the model holds no such job).
func (b *Backend) newJob(e *model.Event) (sqlstore.NewJob, bool) {
	j := b.sys.JobRef(e.Job)
	if j == nil {
		return sqlstore.NewJob{}, false
	}
	return sqlstore.NewJob{
		ID: e.Job, Tenant: j.Tenant, Document: j.Document, Version: j.Version, Key: j.Key,
		PayloadHash: j.PayloadHash, MaxAttempts: j.MaxAttempts, Now: e.At, DeadlineAt: j.DeadlineAt, Origin: j.Origin,
	}, true
}

// enqueue replays an accept's (or a reprocess's) enqueue: created,
// deduplicated or refused as the model decided.
func (b *Backend) enqueue(c Conn, e *model.Event) error {
	nj, ok := b.newJob(e)
	if !ok {
		return b.differ(e, "-", "a job the model does not hold")
	}
	if !e.OK {
		// A retried accept: the id it would have had if new, and for a
		// conflict another payload than the one stored.
		nj.ID = model.JobID(b.sys.Jobs() + 1)
		if e.Code == model.CodeIdempotencyConflict {
			nj.PayloadHash = ^nj.PayloadHash
		}
	}
	id, created, err := c.Enqueue(b.ctx, nj)
	switch {
	case e.Code == model.CodeIdempotencyConflict:
		if !errors.Is(err, sqlstore.ErrIdempotencyConflict) {
			return b.differ(e, outcome(id, created, err), "idempotency conflict")
		}
		return nil
	case err != nil:
		return b.differ(e, "error: "+err.Error(), enqueueWant(e))
	case id != e.Job || created != (e.Code == model.CodeNone):
		return b.differ(e, outcome(id, created, nil), enqueueWant(e))
	}
	return b.enqueueConflict(c, e, nj)
}

// enqueueConflict sends, after an enqueue the store created or
// deduplicated, the same key with another payload: it must be refused.
// The model's sweep retries an accept with its own payload far more often
// than with another, so a store that compared no payload hash (answering
// every existing key as a dedupe) would otherwise pass most seeds; a
// refusal writes nothing, so the probe changes nothing.
func (b *Backend) enqueueConflict(c Conn, e *model.Event, nj sqlstore.NewJob) error {
	if b.enoughConflicts(e) {
		return nil
	}
	nj.ID, nj.PayloadHash = model.JobID(b.sys.Jobs()+1), ^nj.PayloadHash
	id, created, err := c.Enqueue(b.ctx, nj)
	if !errors.Is(err, sqlstore.ErrIdempotencyConflict) {
		return b.differ(e, "another payload under "+nj.Key+": "+outcome(id, created, err), "another payload under "+nj.Key+": idempotency conflict")
	}
	return nil
}

func outcome(id model.JobID, created bool, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	if created {
		return "created " + id.String()
	}
	return "deduplicated to " + id.String()
}

func enqueueWant(e *model.Event) string {
	if e.Code == model.CodeDeduped {
		return "deduplicated to " + e.Job.String()
	}
	return "created " + e.Job.String()
}

// lease replays a granted lease: the store must pick the same job, with
// the same fence, attempt and checkpoint.
func (b *Backend) lease(c Conn, e *model.Event) error {
	l, ok, err := c.LeaseNext(b.ctx, sqlstore.LeaseReq{Worker: e.Actor.String(), Now: e.At, LeaseUntil: e.At + e.N, Ordered: b.sys.Config().Ordered})
	if err != nil {
		return b.differ(e, "error: "+err.Error(), "a lease")
	}
	j := b.sys.JobRef(e.Job)
	if j == nil {
		return b.differ(e, "-", "a job the model does not hold")
	}
	// The job as the lease hands it to the worker: its key, tenant and
	// payload are what the worker works on.
	want := fmt.Sprintf("%s fence=%d attempt=%d stage=%s key=%s tenant=%s payload=%016x", e.Job, e.Fence, e.Attempt, j.Stage,
		j.Key, j.Tenant, j.PayloadHash)
	if !ok {
		return b.differ(e, "no visible job", want)
	}
	got := fmt.Sprintf("%s fence=%d attempt=%d stage=%s key=%s tenant=%s payload=%016x", l.Job, l.Fence, l.Attempt, l.Stage,
		l.Key, l.Tenant, l.Payload)
	if got != want {
		return b.differ(e, got, want)
	}
	return nil
}

// EmptyPoll implements sim.EmptyPoller: the model had no job for the
// worker's poll, so the store, asked the same, must lease none (its lease
// would change its state: the run stops at this first divergence).
func (b *Backend) EmptyPoll(w model.Actor, at, leaseUntil model.Time) error {
	c, err := b.conn(w)
	if err != nil {
		return err
	}
	l, ok, err := c.LeaseNext(b.ctx, sqlstore.LeaseReq{Worker: w.String(), Now: at, LeaseUntil: leaseUntil, Ordered: b.sys.Config().Ordered})
	poll := fmt.Sprintf("%s polls at t=%sms", w, scheduler.AppendMillis(nil, at))
	switch {
	case err != nil:
		return &divergence{event: poll, got: "error: " + err.Error(), want: "no visible job", backend: b.name}
	case ok:
		return &divergence{event: poll, got: fmt.Sprintf("%s fence=%d attempt=%d", l.Job, l.Fence, l.Attempt), want: "no visible job", backend: b.name}
	}
	return nil
}

// fenced compares a fenced call's outcome: accepted when the model
// accepted it, ErrFenced when the model refused a stale fence, an error
// when the job was no longer leased.
func (b *Backend) fenced(e *model.Event, err error) error {
	if e.OK {
		return b.agree(e, "accepted", err)
	}
	switch e.Code {
	case model.CodeStaleFence, model.CodeNotLeased, model.CodeNotFound:
	default:
		return nil
	}
	// The store must refuse for the model's reason, and a stale fence
	// must be told the model's current one.
	want := "refused: " + e.Code.String()
	if e.Code == model.CodeStaleFence {
		want = fmt.Sprintf("stale fence %d (current %d)", e.Fence, e.N2)
	}
	var fe *sqlstore.FenceError
	switch {
	case !errors.As(err, &fe):
		return b.differ(e, outcomeErr(err), want)
	case fe.Code != e.Code:
		return b.differ(e, "refused: "+fe.Code.String(), want)
	case e.Code == model.CodeStaleFence && fe.Current != uint64(e.N2):
		return b.differ(e, fmt.Sprintf("stale fence %d (current %d)", fe.Presented, fe.Current), want)
	case e.Code == model.CodeNotLeased:
		// Not leased: the store says in which state it found the job (a
		// refusal changes nothing, so the model's job is still in it).
		if j := b.sys.JobRef(e.Job); j != nil && fe.State != j.State {
			return b.differ(e, "refused: not leased, the job "+fe.State.String(), "refused: not leased, the job "+j.State.String())
		}
	}
	return nil
}

func outcomeErr(err error) string {
	if err == nil {
		return "accepted"
	}
	return "error: " + err.Error()
}

// commit replays a stage commit: a new result and event, the existing
// ones (dedupe), or a conflict. The model's commit is not fenced, so the
// job's current fence is presented.
func (b *Backend) commit(c Conn, e *model.Event) error {
	j := b.sys.JobRef(e.Job)
	if j == nil {
		return b.differ(e, "-", "a job the model does not hold")
	}
	req := sqlstore.CommitReq{
		Job: e.Job, Fence: j.Fence, Tenant: e.Tenant, Key: e.Key, Stage: e.Stage,
		PayloadHash: j.PayloadHash, EventID: e.EventID, Now: e.At,
	}
	// stored is what the store must hand back: the new result's value, or
	// the one a dedupe finds. A deduplicated caller brings a value of its
	// own (a retried stage computes again, an LLM answers otherwise), so a
	// store that echoed the caller's value or event id is told apart.
	var stored uint64
	if r, ok := b.sys.Committed(e.Key, e.Stage); ok {
		stored = r.Value
	}
	req.Value = stored
	if e.Code != model.CodeNone {
		req.EventID = model.EventID(b.sys.Rows() + 1) // the id it would have had if new
		req.Value = ^stored
	}
	c.CountStatements()
	res, err := c.Commit(b.ctx, req)
	if err == nil && e.Code == model.CodeNone {
		b.commitStatements = c.Statements() // where a crash inside a commit can fall (tornCommit)
	}
	switch e.Code {
	case model.CodeIdempotencyConflict:
		if !errors.Is(err, sqlstore.ErrIdempotencyConflict) {
			return b.differ(e, commitOutcome(res, err), "idempotency conflict")
		}
		return nil
	case model.CodeDeduped:
		if err != nil || !res.Deduped || res.EventID != e.EventID || res.Value != stored {
			return b.differ(e, commitOutcome(res, err), fmt.Sprintf("deduplicated to %s value=%x", e.EventID, stored))
		}
		return b.commitConflict(c, e, req)
	}
	if err != nil || res.Deduped || res.EventID != e.EventID || res.Value != stored {
		return b.differ(e, commitOutcome(res, err), fmt.Sprintf("committed %s value=%x", e.EventID, stored))
	}
	return b.commitConflict(c, e, req)
}

// conflictsPerKind bounds the conflicting payloads sent after a created
// job or result per kind and seed (after a dedupe, one is always sent):
// the first few show a store that compares no payload, at a few extra
// transactions per seed rather than one per commit.
const conflictsPerKind = 4

// enoughConflicts reports whether e, a created job or result, comes after
// the first conflictsPerKind of its kind this seed (and counts it).
func (b *Backend) enoughConflicts(e *model.Event) bool {
	if e.Code != model.CodeNone {
		return false
	}
	b.conflicted[e.Kind]++
	return b.conflicted[e.Kind] > conflictsPerKind
}

// commitConflict commits, once the stage holds its result, the same key
// and stage under another payload hash: it must be refused as a conflict,
// not deduplicated. The correct model never commits two payloads under
// one stage key (the enqueue refuses the second), so without this probe
// a store that ignored the payload hash at commit would pass every seed.
// A refusal writes nothing.
func (b *Backend) commitConflict(c Conn, e *model.Event, req sqlstore.CommitReq) error {
	if b.enoughConflicts(e) {
		return nil
	}
	req.PayloadHash, req.Value, req.EventID = ^req.PayloadHash, ^req.Value, model.EventID(b.sys.Rows()+1)
	res, err := c.Commit(b.ctx, req)
	if !errors.Is(err, sqlstore.ErrIdempotencyConflict) {
		what := fmt.Sprintf("another payload under %s: ", model.StageKey(req.Key, req.Stage))
		return b.differ(e, what+commitOutcome(res, err), what+"idempotency conflict")
	}
	return nil
}

func commitOutcome(r sqlstore.Committed, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case r.Deduped:
		return fmt.Sprintf("deduplicated to %s value=%x", r.EventID, r.Value)
	}
	return fmt.Sprintf("committed %s value=%x", r.EventID, r.Value)
}

// publish replays the relay's publish. The relay's claim must return
// every row the model holds unpublished, oldest first, column by column
// (not only the one it publishes: a claim that skips a row, or a mark
// that marked more than its own, shows here), its first row e's; and the
// broker message must be the model's.
func (b *Backend) publish(c Conn, e *model.Event) error {
	rows, err := c.ClaimUnpublished(b.ctx, readLimit)
	if err != nil {
		return b.differ(e, "error: "+err.Error(), "claimed "+e.EventID.String())
	}
	if len(rows) == 0 || rows[0].EventID != e.EventID {
		got := "no unpublished row"
		if len(rows) > 0 {
			got = "claimed " + rows[0].EventID.String() + " first"
		}
		return b.differ(e, got, "claimed "+e.EventID.String()+" first")
	}
	if got, want := b.unpublished(rows); got != want {
		return b.differ(e, "claimed "+got, "claimed "+want)
	}
	msg, err := c.Publish(b.ctx, e.EventID, e.At)
	if err == nil && msg != e.N {
		return b.differ(e, fmt.Sprintf("message %d", msg), fmt.Sprintf("message %d", e.N))
	}
	if err := b.agree(e, "published", err); err != nil {
		return err
	}
	// A relay claiming one row at a time gets the oldest unpublished
	// (still this one: it is published, not yet marked).
	one, err := c.ClaimUnpublished(b.ctx, 1)
	if err != nil || len(one) != 1 || one[0] != rows[0] {
		return b.differ(e, fmt.Sprintf("a claim of one row: %v %v", one, err), fmt.Sprintf("%+v", rows[0]))
	}
	return nil
}

// unpublished compares a claim's rows with the model's unpublished rows
// (as many as were claimed, up to readLimit), returning both as text at
// the first difference ("", "" when they agree).
func (b *Backend) unpublished(claimed []sqlstore.Row) (got, want string) {
	first, ok := b.sys.NextUnpublished()
	if !ok {
		return fmt.Sprintf("%d rows", len(claimed)), "no row"
	}
	i := 0
	for id := first.EventID; int(id) <= b.sys.Rows() && i < readLimit; id++ {
		r, _ := b.sys.Row(id)
		if r.Published {
			continue
		}
		w := sqlstore.Row{EventID: r.EventID, Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job, CommittedAt: r.CommittedAt}
		if i == len(claimed) {
			return fmt.Sprintf("%d rows, not %s", i, r.EventID), fmt.Sprintf("%+v", w)
		}
		if claimed[i] != w {
			return fmt.Sprintf("%+v", claimed[i]), fmt.Sprintf("%+v", w)
		}
		i++
	}
	if i < len(claimed) {
		return fmt.Sprintf("%+v", claimed[i]), fmt.Sprintf("%d unpublished rows", i)
	}
	return "", ""
}

// apply replays a delivery: the message must carry the same event, and be
// applied or skipped as a duplicate as the model did. Deliver takes the
// message id, so the broker's message-to-event mapping is checked too.
func (b *Backend) apply(c Conn, e *model.Event) error {
	if e.OK { // a first application: the consumer read the message from the broker
		if err := b.readBroker(c, e); err != nil {
			return err
		}
		b.read = max(b.read, e.N2)
	}
	c.CountStatements()
	event, applied, err := c.Deliver(b.ctx, e.N2, e.At)
	if err == nil && applied {
		b.deliverStatements = c.Statements() // where a crash inside a delivery can fall (tornDeliver)
		b.applied[event] = true
	}
	if err == nil && (applied != e.OK || event != e.EventID) {
		return b.differ(e, fmt.Sprintf("%s applied=%v", event, applied), fmt.Sprintf("%s applied=%v", e.EventID, e.OK))
	}
	return b.agree(e, "applied", err)
}

// tornCommit is a crash inside the commit a worker was about to make when
// it crashed after extracting: on fresh connections, the commit of the
// job's stage runs torn after each of its statements but the last (as
// many as the last commit that created a result ran). Each must leave
// nothing: a store that split the result and its outbox row into two
// transactions keeps a result the model never got, and the stage's later
// commit, or the final columns, differ. (Only while the stage is not yet
// committed: that is the path whose statements were counted.)
func (b *Backend) tornCommit(e *model.Event) error {
	j := b.sys.JobRef(e.Job)
	if j == nil || b.commitStatements < 2 || j.Stage >= model.StageDone {
		return nil
	}
	if _, done := b.sys.Committed(j.Key, j.Stage); done {
		return nil
	}
	req := sqlstore.CommitReq{Job: j.ID, Fence: e.Fence, Tenant: j.Tenant, Key: j.Key, Stage: j.Stage,
		PayloadHash: j.PayloadHash, EventID: model.EventID(b.sys.Rows() + 1), Now: e.At}
	return b.tear(e, b.commitStatements, fmt.Sprintf("a commit of %s stage=%v", j.Key, j.Stage),
		"the worker crashed before committing", func(c Conn) error {
			_, err := c.Commit(b.ctx, req)
			return err
		})
}

// tornDeliver is a consumer's crash with a message in its hands (after
// receiving, before applying): on fresh connections, the delivery of that
// message runs torn after each of its statements but the last (as many as
// the last delivery that applied its event ran). Each must leave nothing:
// a store whose ledger entry and effect are two transactions keeps the
// ledger entry, and the redelivery is then refused as a duplicate with no
// effect. (Only for a message whose event was never applied: that is the
// path whose statements were counted.)
func (b *Backend) tornDeliver(e *model.Event) error {
	m, ok := b.sys.Message(e.N2)
	if e.N2 == 0 || !ok || b.deliverStatements < 2 || b.applied[m.Event] {
		return nil
	}
	return b.tear(e, b.deliverStatements, fmt.Sprintf("a delivery of message %d", e.N2),
		"the consumer crashed before applying it", func(c Conn) error {
			_, _, err := c.Deliver(b.ctx, e.N2, e.At)
			return err
		})
}

// tear runs op on fresh connections torn after each of its statements
// but the last: each must fail and leave nothing behind.
func (b *Backend) tear(e *model.Event, statements int, what, want string, op func(Conn) error) error {
	for k := 1; k < statements; k++ {
		c, err := b.open()
		if err != nil {
			return err
		}
		c.TearAfter(k)
		c.CountStatements()
		err = op(c)
		torn, ran := c.Torn(), c.Statements()
		_ = c.Close()
		if !torn || err == nil {
			return b.differ(e, fmt.Sprintf("%s torn after %d of its %d statements went through (%v)",
				what, k, statements, err), "nothing: "+want)
		}
		if ran != k+1 {
			// The tear fell elsewhere than armed (it counts the statement it
			// stopped): the instrument is broken, and what it proves, void.
			return b.differ(e, fmt.Sprintf("%s armed to tear after %d statements, torn at statement %d", what, k, ran),
				fmt.Sprintf("torn before statement %d", k+1))
		}
	}
	return nil
}

// readLimit bounds one read of the broker: far more than a seed keeps
// waiting (the relay publishes a row at a time and the consumer keeps up).
const readLimit = 1 << 12

// readBroker reads the broker as the consumer does, past its cursor and
// behind it what was never applied, before the model's first application
// of e's event: the message must be listed, and every message listed must
// carry the event the model's broker has under its id.
func (b *Backend) readBroker(c Conn, e *model.Event) error {
	msgs, err := c.Messages(b.ctx, b.read, readLimit)
	if err != nil {
		return b.differ(e, "error reading the broker: "+err.Error(), fmt.Sprintf("message %d listed", e.N2))
	}
	listed := false
	for _, m := range msgs {
		want, ok := b.sys.Message(m.ID)
		if !ok || want.Event != m.Event {
			got := fmt.Sprintf("message %d carrying %s in its read past message %d", m.ID, m.Event, b.read)
			if !ok {
				return b.differ(e, got, fmt.Sprintf("no message %d", m.ID))
			}
			return b.differ(e, got, fmt.Sprintf("message %d carrying %s", m.ID, want.Event))
		}
		listed = listed || m.ID == e.N2
	}
	if !listed {
		return b.differ(e, fmt.Sprintf("no message %d in its read past message %d (%d listed)", e.N2, b.read, len(msgs)),
			fmt.Sprintf("message %d, carrying %s and never applied, listed", e.N2, e.EventID))
	}
	return nil
}

// dlqWrite replays the first dead-letter step (a worker's decision, or the
// lease path's for a job out of attempts).
func (b *Backend) dlqWrite(c Conn, e *model.Event) error {
	row := sqlstore.DLQRow{Job: e.Job, Tenant: e.Tenant, Reason: e.Code, Attempts: int32(e.N)}
	return b.agree(e, "written", c.WriteDLQ(b.ctx, row, b.takeFail(e.Actor, e.Job), e.At))
}

// redrive replays an operator's redrive; a redrive the model refused as
// not allowed must be refused by the store too. (A rate-limited one is the
// model's throttle, not the store's business: nothing to replay.)
func (b *Backend) redrive(c Conn, e *model.Event) error {
	switch {
	case e.OK:
		if err := c.Redrive(b.ctx, e.Job, e.At, e.At+e.N2); err != nil {
			return b.differ(e, "error: "+err.Error(), "redriven")
		}
		return b.agree(e, "audited", c.Audit(b.ctx, sqlstore.AuditRow{
			Operator: e.Actor.String(), Action: "redrive", Job: e.Job, NewJob: e.Job}, e.At))
	case e.Code == model.CodeCancelledTerminal || e.Code == model.CodeNotDead:
		// The store knows one reason for both: the job is not dead.
		if err := c.Redrive(b.ctx, e.Job, e.At, e.At); !errors.Is(err, sqlstore.ErrNotDead) {
			return b.differ(e, outcomeErr(err), "refused: "+e.Code.String())
		}
	}
	return nil
}

// reprocess records the audit entry of a reprocess (its new job was the
// enqueue just before).
func (b *Backend) reprocess(c Conn, e *model.Event) error {
	if !e.OK {
		return nil
	}
	row := sqlstore.AuditRow{Operator: strings.TrimPrefix(e.Text, "operator="), Action: "reprocess", Job: e.Job, NewJob: e.Other}
	return b.agree(e, "audited", c.Audit(b.ctx, row, e.At))
}

// failNote is a worker's last failed attempt: the model's Fail records
// its code on the job with no event of its own when the decision is to
// dead-letter (the DLQ write that follows carries the reason instead).
type failNote struct {
	job  model.JobID
	code model.Code
}

func (b *Backend) noteFail(e *model.Event) {
	if e.Actor.Role != model.RoleWorker || e.Actor.ID < 0 {
		return
	}
	for int(e.Actor.ID) >= len(b.fails) {
		b.fails = append(b.fails, failNote{})
	}
	b.fails[e.Actor.ID] = failNote{job: e.Job, code: e.Code}
}

// takeFail returns (and forgets) the code of the worker's failed attempt
// at job; CodeNone when its last failure was at another job, or none.
func (b *Backend) takeFail(a model.Actor, job model.JobID) model.Code {
	if a.Role != model.RoleWorker || int(a.ID) >= len(b.fails) || a.ID < 0 {
		return model.CodeNone
	}
	n := b.fails[a.ID]
	b.fails[a.ID] = failNote{}
	if n.job != job || job == 0 {
		return model.CodeNone
	}
	return n.code
}

// agree fails when the store refused what the model did.
func (b *Backend) agree(e *model.Event, what string, err error) error {
	if err != nil {
		return b.differ(e, "error: "+err.Error(), what)
	}
	return nil
}

// divergence is a disagreement between the store and the model.
type divergence struct {
	event     string
	got, want string
	backend   string
}

func (d *divergence) Error() string {
	return fmt.Sprintf("%s said %s, the model said %s (%s)", d.backend, d.got, d.want, d.event)
}

func (b *Backend) differ(e *model.Event, got, want string) error {
	return &divergence{event: e.String(), got: got, want: want, backend: b.name}
}
