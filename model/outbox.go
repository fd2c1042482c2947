package model

import "unsafe"

// keyResults holds every stage's result under one key: one map entry per
// key instead of one per (key, stage) keeps the outbox small. The entries
// live in a paged table, not one allocation each, and name their tenant by
// its index in Outbox.tenants: 112 bytes a key instead of 184.
type keyResults struct {
	job     JobID
	stages  [StageDone]stageResult
	tenant  uint32
	written uint8 // a bit per stage with a committed result
}

// stageResult is one stage's committed result and its event.
type stageResult struct {
	event EventID
	value uint64
	hash  uint64 // the payload hash it was committed with
}

// has reports whether stage st has a committed result.
func (k *keyResults) has(st Stage) bool { return k.written&(1<<st) != 0 }

// set commits stage st's result.
func (k *keyResults) set(st Stage, r stageResult) {
	k.stages[st] = r
	k.written |= 1 << st
}

// result returns the stage's result as the public type.
func (o *Outbox) result(k *keyResults, key string, st Stage) Result {
	r := k.stages[st]
	return Result{Key: key, Stage: st, Tenant: o.tenants[k.tenant], Job: k.job, PayloadHash: r.hash, Value: r.value, EventID: r.event}
}

// lookup returns key's results, if any.
func (o *Outbox) lookup(key string) (*keyResults, bool) {
	if i, ok := o.index(key); ok {
		return o.keys.at(int(i)), true
	}
	return nil, false
}

// index is key's entry in keys. A job's commits, and the relay's reads of
// its rows, all name the key by the job's own string: a slot picked by
// where the string lies remembers its entry, and answers when it holds the
// very string (two pointers and two lengths, where the map would hash the
// key). Keys are never removed, so a remembered entry stays right; a slot
// keeps its string alive, so its address cannot be reused meanwhile.
func (o *Outbox) index(key string) (int32, bool) {
	slot := o.recentSlot(key)
	if unsafe.StringData(slot.key) == unsafe.StringData(key) && len(slot.key) == len(key) && key != "" {
		return slot.entry, true
	}
	i, ok := o.results[key]
	if ok {
		*slot = recentKey{key: key, entry: i}
	}
	return i, ok
}

// recentSlot is the slot of Outbox.recent that remembers key.
func (o *Outbox) recentSlot(key string) *recentKey {
	return &o.recent[(uintptr(unsafe.Pointer(unsafe.StringData(key)))>>4^uintptr(len(key)))%uintptr(len(o.recent))]
}

// recentKey is a key looked up lately and its entry in Outbox.keys.
type recentKey struct {
	key   string
	entry int32
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
	results map[string]int32 // key → its entry in keys
	recent  [16]recentKey    // keys looked up lately (index)
	keys    pages[keyResults]
	rows    pages[row] // event id-1
	tenants []string   // row.tenant indexes it
	cursor  int        // rows before cursor are all published
	pruned  int        // rows before pruned are all pruned
	pending int        // rows not yet marked published
}

// row is an [OutboxRow] as the outbox stores it: the event id is its
// position and the tenant an index into Outbox.tenants, which takes it
// from 88 bytes to 48 (a large run writes millions of rows).
type row struct {
	key         string
	job         JobID
	committedAt Time
	publishedAt Time
	tenant      uint32
	stage       Stage
	published   bool
	prunedRow   bool
}

// add appends the row of the next event id and returns that id.
func (o *Outbox) add(r OutboxRow) EventID {
	id := EventID(o.rows.len() + 1)
	o.rows.push(row{
		key: r.Key, job: r.Job, committedAt: r.CommittedAt, publishedAt: r.PublishedAt,
		tenant: o.tenantIndex(r.Tenant), stage: r.Stage, published: r.Published, prunedRow: r.Pruned,
	})
	return id
}

// tenantIndex returns t's index in o.tenants, adding it. A run has a
// handful of tenants, so a scan is cheaper than a map.
func (o *Outbox) tenantIndex(t string) uint32 {
	for i := len(o.tenants) - 1; i >= 0; i-- {
		if o.tenants[i] == t {
			return uint32(i)
		}
	}
	o.tenants = append(o.tenants, t)
	return uint32(len(o.tenants) - 1)
}

// row returns the public form of the row of event id, which must exist.
func (o *Outbox) row(id EventID) OutboxRow {
	r := o.rows.at(int(id - 1))
	return OutboxRow{
		EventID: id, Key: r.key, Stage: r.stage, Tenant: o.tenants[r.tenant], Job: r.job,
		CommittedAt: r.committedAt, Published: r.published, PublishedAt: r.publishedAt, Pruned: r.prunedRow,
	}
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
	e.EventID, e.Payload = res.EventID, r.PayloadHash
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
	old, ok := s.outbox.lookup(r.Key)
	if ok && old.has(r.Stage) {
		if old.stages[r.Stage].hash != r.PayloadHash {
			return CommitResult{}, &IdempotencyConflictError{Key: StageKey(r.Key, r.Stage)}
		}
		st := old.stages[r.Stage]
		return CommitResult{EventID: st.event, Value: st.value, Deduped: true}, nil
	}
	return s.outbox.insertAt(s.Now(), r, old), nil
}

// insert writes a result and its pending event.
func (o *Outbox) insert(now Time, r CommitRequest) CommitResult { return o.insertAt(now, r, nil) }

// insertAt is insert given key's results when the caller already looked
// them up (nil: not found), which saves hashing the key again.
func (o *Outbox) insertAt(now Time, r CommitRequest, k *keyResults) CommitResult {
	o.pending++
	id := o.add(OutboxRow{Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job, CommittedAt: now})
	if k == nil { // add pushes rows, not keys, so a k found before stays valid
		k = o.keyFor(r.Key, r.Tenant, r.Job)
	}
	k.set(r.Stage, stageResult{event: id, value: r.Value, hash: r.PayloadHash})
	return CommitResult{EventID: id, Value: r.Value}
}

// keyFor returns key's results, created for its first committer. The
// pointer is good until the next keyFor.
func (o *Outbox) keyFor(key, tenant string, job JobID) *keyResults {
	if k, ok := o.lookup(key); ok {
		return k
	}
	i := int32(o.keys.len())
	o.results[key] = i
	*o.recentSlot(key) = recentKey{key: key, entry: i}
	return o.keys.push(keyResults{tenant: o.tenantIndex(tenant), job: job})
}

// Committed reports whether the stage of key has a committed result.
func (s *System) Committed(key string, st Stage) (Result, bool) {
	if k, ok := s.outbox.lookup(key); ok && k.has(st) {
		return s.outbox.result(k, key, st), true
	}
	return Result{}, false
}

// Results returns every committed stage result, ordered by event id.
func (s *System) Results() []Result { return s.AppendResults(nil) }

// AppendResults appends what Results returns to out.
//
// A result with an event is the result of its event's outbox row (the row
// names its key and stage), so walking the rows in id order lists those
// in order, with no sort: a row whose (key, stage) result is another
// event's (a naive commit that wrote the stage again) is skipped. Results
// with no event (only the dual write has them: dualwrite.go) come first.
func (s *System) AppendResults(out []Result) []Result {
	return s.outbox.appendEvented(s.outbox.appendUnevented(out))
}

// appendEvented appends the results with an event, in event id order.
// Every row's key has results (a row is written with its key's result),
// and a stage with no result has event 0, while ids start at 1.
func (o *Outbox) appendEvented(out []Result) []Result {
	for i := range o.rows.len() {
		r := o.rows.at(i)
		j, _ := o.index(r.key)
		if k := o.keys.at(int(j)); k.stages[r.stage].event == EventID(i+1) {
			out = append(out, o.result(k, r.key, r.stage))
		}
	}
	return out
}

// Row returns the outbox row of an event.
func (s *System) Row(id EventID) (OutboxRow, bool) {
	if id < 1 || int(id) > s.outbox.rows.len() {
		return OutboxRow{}, false
	}
	return s.outbox.row(id), true
}

// Rows is how many outbox rows were ever written.
func (s *System) Rows() int { return s.outbox.rows.len() }

// PendingRows is how many outbox rows await publication.
func (s *System) PendingRows() int { return s.outbox.pending }

// NextUnpublished returns the oldest row not yet marked published: the
// relay's next row.
func (s *System) NextUnpublished() (OutboxRow, bool) {
	id, ok := s.NextUnpublishedID()
	if !ok {
		return OutboxRow{}, false
	}
	return s.outbox.row(id), true
}

// NextUnpublishedID is the event id of NextUnpublished's row, without the
// row (the relay reads it when it takes each step).
func (s *System) NextUnpublishedID() (EventID, bool) {
	o := &s.outbox
	for o.cursor < o.rows.len() && o.rows.at(o.cursor).published {
		o.cursor++
	}
	if o.cursor == o.rows.len() {
		return 0, false
	}
	return EventID(o.cursor + 1), true
}

// MarkPublished marks the row published (the relay's second step).
func (s *System) MarkPublished(actor Actor, id EventID) {
	row := s.outbox.rows.at(int(id - 1))
	if row.published {
		return
	}
	row.published, row.publishedAt = true, s.Now()
	s.outbox.pending--
	e := s.event(EvMarkPublished, actor)
	e.EventID, e.Key, e.Tenant, e.Job = id, row.key, s.outbox.tenants[row.tenant], row.job
	e.Stage, e.HasStage, e.OK = row.stage, true, true
	s.emit(e)
}

// PruneOutbox applies the retention policy: published rows older than the
// retention are removed. Results stay (they are what dedupe reads); only the
// announcement is dropped (seed 000 lists the missing policy as a gap).
func (s *System) PruneOutbox(actor Actor) int {
	now, n := s.Now(), 0
	o := &s.outbox
	for o.pruned < o.rows.len() && o.rows.at(o.pruned).prunedRow {
		o.pruned++
	}
	for i := o.pruned; i < o.rows.len(); i++ {
		row := o.rows.at(i)
		if row.published && !row.prunedRow && now-row.publishedAt >= s.cfg.Retention {
			row.prunedRow = true
			n++
			e := s.event(EvPrune, actor)
			e.EventID, e.Job, e.OK = EventID(i+1), row.job, true
			s.emit(e)
		}
	}
	return n
}

// EachRow calls f with every outbox row in event id order. The row is a
// scratch copy, reused for the next one: f must not keep it.
func (s *System) EachRow(f func(r *OutboxRow)) {
	var r OutboxRow
	for id := EventID(1); int(id) <= s.outbox.rows.len(); id++ {
		r = s.outbox.row(id)
		f(&r)
	}
}
