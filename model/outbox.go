package model

// keyResults holds every stage's result under one key: one map entry per
// key instead of one per (key, stage) keeps the outbox small.
type keyResults struct {
	tenant string
	job    JobID
	stages [StageDone]stageResult
}

// stageResult is one stage's committed result (written) and its event.
type stageResult struct {
	written bool
	event   EventID
	value   uint64
	hash    uint64 // the payload hash it was committed with
}

// result returns the stage's result as the public type.
func (k *keyResults) result(key string, st Stage) Result {
	r := k.stages[st]
	return Result{Key: key, Stage: st, Tenant: k.tenant, Job: k.job, PayloadHash: r.hash, Value: r.value, EventID: r.event}
}

// Result is a committed stage result (the outbox's results table).
type Result struct {
	Key         string
	Stage       Stage
	Tenant      string
	Job         JobID
	PayloadHash uint64
	Value       uint64 // the result itself, as a hash (no content is kept)
	EventID     EventID
}

// OutboxRow is the event announcing a result, waiting for the relay.
type OutboxRow struct {
	EventID     EventID
	Key         string
	Stage       Stage
	Tenant      string
	Job         JobID
	CommittedAt Time
	Published   bool
	PublishedAt Time
	Pruned      bool // removed by the retention policy after publication
}

// Outbox is the transactional outbox: results and their events, written in
// one atomic step.
type Outbox struct {
	results map[string]*keyResults
	rows    []OutboxRow // rows[eventID-1]
	cursor  int         // rows before cursor are all published
	pruned  int         // rows before pruned are all pruned
	pending int         // rows not yet marked published
}

// CommitRequest is one stage's result to commit.
type CommitRequest struct {
	Actor       Actor
	Job         JobID
	Tenant      string
	Key         string
	Stage       Stage
	PayloadHash uint64
	Value       uint64
}

// CommitResult is what CommitResultWithEvent returns.
type CommitResult struct {
	EventID EventID
	Value   uint64
	Deduped bool
}

// CommitResultWithEvent writes the stage result and its outbox event in one
// atomic step (seed 000's outbox.mjs). Same key and payload hash: dedupe,
// returning the existing result and event. Same key, different hash:
// IdempotencyConflictError, never silent reuse. The design may replace this
// with a naive commit.
func (s *System) CommitResultWithEvent(r CommitRequest) (CommitResult, error) {
	res, err := s.design.Commit(s, r)
	e := s.event(EvCommit, r.Actor)
	e.Job, e.Tenant, e.Key, e.Stage, e.HasStage = r.Job, r.Tenant, r.Key, r.Stage, true
	e.EventID = res.EventID
	switch {
	case err != nil:
		e.Code = CodeIdempotencyConflict
	case res.Deduped:
		e.Code, e.OK = CodeDeduped, true
	default:
		e.OK = true
	}
	s.emit(e)
	return res, err
}

// commitDedupe is the correct commit: look the key up first.
func commitDedupe(s *System, r CommitRequest) (CommitResult, error) {
	if old, ok := s.outbox.results[r.Key]; ok && old.stages[r.Stage].written {
		if old.stages[r.Stage].hash != r.PayloadHash {
			return CommitResult{}, &IdempotencyConflictError{Key: StageKey(r.Key, r.Stage)}
		}
		st := old.stages[r.Stage]
		return CommitResult{EventID: st.event, Value: st.value, Deduped: true}, nil
	}
	return s.outbox.insert(s.Now(), r), nil
}

// insert writes a result and its pending event.
func (o *Outbox) insert(now Time, r CommitRequest) CommitResult {
	id := EventID(len(o.rows) + 1)
	o.pending++
	o.rows = append(o.rows, OutboxRow{EventID: id, Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job, CommittedAt: now})
	k := o.keyFor(r.Key, r.Tenant, r.Job)
	k.stages[r.Stage] = stageResult{written: true, event: id, value: r.Value, hash: r.PayloadHash}
	return CommitResult{EventID: id, Value: r.Value}
}

// keyFor returns key's results, created for its first committer.
func (o *Outbox) keyFor(key, tenant string, job JobID) *keyResults {
	k := o.results[key]
	if k == nil {
		k = &keyResults{tenant: tenant, job: job}
		o.results[key] = k
	}
	return k
}

// Committed reports whether the stage of key has a committed result.
func (s *System) Committed(key string, st Stage) (Result, bool) {
	if k, ok := s.outbox.results[key]; ok && k.stages[st].written {
		return k.result(key, st), true
	}
	return Result{}, false
}

// Row returns the outbox row of an event.
func (s *System) Row(id EventID) (OutboxRow, bool) {
	if id < 1 || int(id) > len(s.outbox.rows) {
		return OutboxRow{}, false
	}
	return s.outbox.rows[id-1], true
}

// Rows is how many outbox rows were ever written.
func (s *System) Rows() int { return len(s.outbox.rows) }

// PendingRows is how many outbox rows await publication.
func (s *System) PendingRows() int { return s.outbox.pending }

// NextUnpublished returns the oldest row not yet marked published: the
// relay's next row.
func (s *System) NextUnpublished() (OutboxRow, bool) {
	o := &s.outbox
	for o.cursor < len(o.rows) && o.rows[o.cursor].Published {
		o.cursor++
	}
	if o.cursor == len(o.rows) {
		return OutboxRow{}, false
	}
	return o.rows[o.cursor], true
}

// MarkPublished marks the row published (the relay's second step).
func (s *System) MarkPublished(actor Actor, id EventID) {
	row := &s.outbox.rows[id-1]
	if row.Published {
		return
	}
	row.Published, row.PublishedAt = true, s.Now()
	s.outbox.pending--
	e := s.event(EvMarkPublished, actor)
	e.EventID, e.Key, e.Tenant, e.Job = id, row.Key, row.Tenant, row.Job
	e.Stage, e.HasStage, e.OK = row.Stage, true, true
	s.emit(e)
}

// PruneOutbox applies the retention policy: published rows older than the
// retention are removed. Results stay (they are what dedupe reads); only the
// announcement is dropped (seed 000 lists the missing policy as a gap).
func (s *System) PruneOutbox(actor Actor) int {
	now, n := s.Now(), 0
	o := &s.outbox
	for o.pruned < len(o.rows) && o.rows[o.pruned].Pruned {
		o.pruned++
	}
	for i := o.pruned; i < len(o.rows); i++ {
		row := &o.rows[i]
		if row.Published && !row.Pruned && now-row.PublishedAt >= s.cfg.Retention {
			row.Pruned = true
			n++
			e := s.event(EvPrune, actor)
			e.EventID, e.Job, e.OK = row.EventID, row.Job, true
			s.emit(e)
		}
	}
	return n
}
