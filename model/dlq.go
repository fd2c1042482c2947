package model

import (
	"errors"
	"hash/fnv"
	"math"
	"slices"
)

// Quarantine is a DLQ entry's status (seed 003).
type Quarantine uint8

// Quarantine statuses.
const (
	Quarantined Quarantine = iota
	Resolved
	Archived
)

func (q Quarantine) String() string {
	return enumName([]string{"QUARANTINED", "RESOLVED", "ARCHIVED"}, q, "quarantine")
}

// Tokens is seed 003's tokensConsumed.
type Tokens struct{ Prompt, Completion, Total int64 }

// Envelope is seed 003's diagnostic DLQ envelope without raw content:
// document text and raw error messages are kept by hash only, and the reason
// is a short code.
type Envelope struct {
	Job           JobID
	CorrelationID string // the idempotency key
	Tenant        string
	OriginalQueue string
	AgentID       string
	AgentVersion  string
	PromptVersion string
	ModelName     string
	Tokens        Tokens
	Attempts      int32
	Reason        Code     // permanent_error, max_attempts_exceeded, ...
	SchemaPaths   []string // seed 003's schemaErrors paths, no messages
	PayloadRef    uint64   // hash of the document, never its text
	ErrorRef      uint64   // hash of the raw error, never its text
	RawError      string   // empty in the correct design (raw-error-in-dlq fills it)
	RedriveCount  int32
	Status        Quarantine
	WrittenAt     Time
}

// DLQ holds envelopes by job.
type DLQ struct {
	entries map[JobID]*Envelope
	order   []JobID
}

// AgentInfo describes the agent that ran a job, for the envelope.
type AgentInfo struct {
	AgentID, AgentVersion, PromptVersion, ModelName string
}

// DefaultAgent is the synthetic extraction agent of the simulations.
var DefaultAgent = AgentInfo{AgentID: "extractor", AgentVersion: "1.4.0", PromptVersion: "p7", ModelName: "model-sim"}

// WriteDLQ writes the job's envelope (first step of a dead-letter decision).
// Writing again for the same job overwrites the entry: the write is
// idempotent, so a crash between it and MarkDead cannot duplicate it.
func (s *System) WriteDLQ(actor Actor, id JobID, reason Code, cause error) {
	if j := s.job(id); j != nil {
		s.writeDLQ(j, reason, cause, actor)
	}
}

func (s *System) writeDLQ(j *Job, reason Code, cause error, actor Actor) {
	env := &Envelope{
		Job: j.ID, CorrelationID: j.Key, Tenant: j.Tenant, OriginalQueue: "pipeline",
		AgentID: DefaultAgent.AgentID, AgentVersion: DefaultAgent.AgentVersion,
		PromptVersion: DefaultAgent.PromptVersion, ModelName: DefaultAgent.ModelName,
		Tokens:   Tokens{Prompt: j.TokensSpent * 3 / 4, Completion: j.TokensSpent - j.TokensSpent*3/4, Total: j.TokensSpent},
		Attempts: j.Attempt, Reason: reason, PayloadRef: j.PayloadHash,
		RedriveCount: j.RedriveCount, WrittenAt: s.Now(),
	}
	var we *WorkError
	switch {
	case errors.As(cause, &we):
		env.SchemaPaths = slices.Clone(we.SchemaPaths)
		env.ErrorRef = hashString(we.Raw)
	case cause != nil:
		env.ErrorRef = hashString(cause.Error())
	}
	s.design.Sanitize(env, cause)
	if _, ok := s.dlq.entries[j.ID]; !ok {
		s.dlq.order = append(s.dlq.order, j.ID)
	}
	s.dlq.entries[j.ID] = env
	e := jobEvent(s.event(EvDLQWrite, actor), j)
	e.Code, e.N, e.N2, e.OK = reason, int64(j.Attempt), j.TokensSpent, true
	s.emit(e)
}

// sanitizeNothing is the correct design's sanitizer: the envelope already
// holds codes and hashes only.
func sanitizeNothing(*Envelope, error) {}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// DLQEntries returns copies of the DLQ envelopes in the order written.
func (s *System) DLQEntries() []Envelope {
	out := make([]Envelope, 0, len(s.dlq.order))
	for _, id := range s.dlq.order {
		env := *s.dlq.entries[id]
		env.SchemaPaths = slices.Clone(env.SchemaPaths)
		out = append(out, env)
	}
	return out
}

// Quarantined returns the jobs whose DLQ entry awaits a decision, in order.
func (s *System) Quarantined() []JobID { return s.AppendQuarantined(nil) }

// AppendQuarantined appends what Quarantined returns to out.
func (s *System) AppendQuarantined(out []JobID) []JobID {
	for _, id := range s.dlq.order {
		if env := s.dlq.entries[id]; env.Status == Quarantined && s.job(id).State == Dead {
			out = append(out, id)
		}
	}
	return out
}

// AuditEntry links an operator decision to the jobs it touched.
type AuditEntry struct {
	Action   string // "reprocess" or "redrive"
	OldJob   JobID
	NewJob   JobID
	Operator string
	Tenant   string
	At       Time
}

// Audit returns the audit log.
func (s *System) Audit() []AuditEntry {
	if len(s.audit) == 0 {
		return nil // as for a fresh System, whose log is nil, after a Reset too
	}
	return slices.Clone(s.audit)
}

// Redrive sends a dead job back to the queue after its dependency was
// fixed: same job, same logical operation and idempotency key, so stages
// already committed are not redone (seed 004). Bulk redrive is throttled by
// a token bucket (seed 003). Attempts and budget start again.
func (s *System) Redrive(actor Actor, id JobID) error {
	j := s.job(id)
	if err := s.checkDead(EvRedrive, actor, j, id); err != nil {
		return err
	}
	now := s.Now()
	if s.design.RedriveThrottled && !s.redrive.take(now) {
		e := jobEvent(s.event(EvRedrive, actor), j)
		e.Code = CodeRateLimited
		s.emit(e)
		return ErrRateLimited
	}
	j.RedriveCount++
	s.design.Redrive(j)
	s.queue.byKey[j.Key] = j.ID
	// A redrive is a fresh try of the same operation: attempts, budget and
	// deadline start again (the old deadline has usually passed by the time
	// a human fixed the dependency).
	j.State, j.Attempt, j.TokensSpent, j.VisibleAt = Pending, 0, 0, now
	j.DeadlineAt = now + s.cfg.Deadline
	s.queue.live++
	s.schedule(j, now)
	if s.queue.head > j.ID {
		s.queue.head = j.ID // ordered mode: the redriven job is the oldest unfinished one again
	}
	if env := s.dlq.entries[id]; env != nil {
		env.Status, env.RedriveCount = Resolved, j.RedriveCount
	}
	s.audit = append(s.audit, AuditEntry{Action: "redrive", OldJob: id, NewJob: id, Operator: actor.String(), Tenant: j.Tenant, At: now})
	e := jobEvent(s.event(EvRedrive, actor), j)
	e.N, e.N2, e.OK = int64(j.RedriveCount), s.cfg.Deadline, true
	e.HasStage, e.Stage = true, j.Stage
	s.emit(e)
	return nil
}

func (s *System) checkDead(kind EventKind, actor Actor, j *Job, id JobID) error {
	code, err := CodeNone, error(nil)
	switch {
	case j == nil:
		return ErrNotFound
	case s.design.Revivable(j.State):
		return nil
	case j.State == Cancelled:
		code, err = CodeCancelledTerminal, ErrCancelled
	case j.State != Dead:
		code, err = CodeNotDead, ErrNotDead
	default:
		return nil
	}
	e := jobEvent(s.event(kind, actor), j)
	e.Code = code
	s.emit(e)
	return err
}

// Reprocess is a human decision to redo a dead job: it needs an operator id,
// creates a new job with operationVersion+1 (a new key, by design), never
// resurrects the dead one, writes an audit entry linking old job, new job,
// operator and time, and is rate-limited per tenant.
func (s *System) Reprocess(actor Actor, id JobID, operator string) (JobID, error) {
	return s.design.Reprocess(s, actor, id, operator)
}

// reprocessAudited is the correct reprocess.
func (s *System) reprocessAudited(actor Actor, id JobID, operator string) (JobID, error) {
	j := s.job(id)
	if err := s.checkDead(EvReprocess, actor, j, id); err != nil {
		return 0, err
	}
	if operator == "" {
		e := jobEvent(s.event(EvReprocess, actor), j)
		e.Code = CodeMissingOperator
		s.emit(e)
		return 0, ErrMissingOperator
	}
	if j.Version >= math.MaxInt32 {
		// No next version: its key would be invalid (and the int32 would
		// wrap). Refused before the rate limit takes a token for it.
		e := jobEvent(s.event(EvReprocess, actor), j)
		e.Code, e.Text = CodeInvalidKey, "operator="+operator
		s.emit(e)
		return 0, ErrNoNextVersion
	}
	now := s.Now()
	if !s.tenantBucket(j.Tenant).take(now) {
		e := jobEvent(s.event(EvReprocess, actor), j)
		e.Code, e.Text = CodeRateLimited, "operator="+operator
		s.emit(e)
		return 0, ErrRateLimited
	}
	old := *j
	nid, err := s.Enqueue(EnqueueRequest{
		Tenant: old.Tenant, Document: old.Document, Version: int(old.Version) + 1,
		PayloadHash: old.PayloadHash, Origin: old.ID, Actor: actor,
	})
	if err != nil {
		return 0, err
	}
	if env := s.dlq.entries[id]; env != nil {
		env.Status = Resolved
	}
	s.audit = append(s.audit, AuditEntry{Action: "reprocess", OldJob: id, NewJob: nid, Operator: operator, Tenant: old.Tenant, At: now})
	e := jobEvent(s.event(EvReprocess, actor), &old)
	e.Other, e.N, e.Text, e.OK = nid, int64(old.Version)+1, "operator="+operator, true
	s.emit(e)
	return nid, nil
}

func (s *System) tenantBucket(tenant string) *bucket {
	b := s.perTenantReprocess[tenant]
	if b == nil {
		nb := newBucket(s.cfg.Reprocess, s.Now())
		b = &nb
		s.perTenantReprocess[tenant] = b
	}
	return b
}

// bucket is a token bucket refilled one token per refill interval.
type bucket struct {
	cfg    BucketConfig
	tokens int32
	last   Time
}

func newBucket(c BucketConfig, now Time) bucket { return bucket{cfg: c, tokens: c.Capacity, last: now} }

func (b *bucket) take(now Time) bool {
	if n := (now - b.last) / b.cfg.Refill; n > 0 {
		b.tokens = int32(min(int64(b.cfg.Capacity), int64(b.tokens)+n))
		b.last += n * b.cfg.Refill
	}
	if b.tokens == b.cfg.Capacity {
		// A full bucket banks no refill time: the next token comes a whole
		// refill after this take. (Banking it let two reprocesses of one
		// tenant through 54 s apart under a limit of one a minute.)
		b.last = now
	}
	if b.tokens == 0 {
		return false
	}
	b.tokens--
	return true
}
