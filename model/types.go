package model

import (
	"strconv"
)

// JobID identifies a job in the queue (1-based; 0 means none).
type JobID int64

// EventID identifies an outbox event (1-based; 0 means none).
type EventID int64

func (j JobID) String() string   { return "j" + strconv.FormatInt(int64(j), 10) }
func (e EventID) String() string { return "e" + strconv.FormatInt(int64(e), 10) }

// Role is the kind of actor an event comes from.
type Role uint8

// Actor roles.
const (
	RoleNone Role = iota
	RoleAPI
	RoleWorker
	RoleRelay
	RoleBroker
	RoleConsumer
	RoleOperator
	RoleClient
	RoleSim
	roleCount
)

var roleNames = [roleCount]string{"-", "api", "w", "relay", "broker", "consumer", "op", "client", "sim"}

func (r Role) String() string { return enumName(roleNames[:], r, "role") }

// Actor names who did something: a role, an index (workers w0..wN-1) and an
// incarnation that grows each time the actor restarts after a crash.
type Actor struct {
	Role        Role
	ID          int32
	Incarnation int32
}

// String prints "w3" or "w3.2" (second incarnation), "relay", "relay.1"...
func (a Actor) String() string { return string(a.AppendText(nil)) }

// AppendText appends the actor's trace form.
func (a Actor) AppendText(b []byte) []byte {
	b = append(b, a.Role.String()...)
	if a.Role == RoleWorker || a.Role == RoleClient {
		b = strconv.AppendInt(b, int64(a.ID), 10)
	}
	if a.Incarnation > 0 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(a.Incarnation), 10)
	}
	return b
}

// Stage is a step of the pipeline ingest → extract → validate → review
// (seed 000). Each stage's effect is committed under key + ":" + stage.
type Stage uint8

// The pipeline stages, in order. StageDone means every stage committed.
const (
	StageIngest Stage = iota
	StageExtract
	StageValidate
	StageReview
	StageDone
)

var stageNames = [StageDone + 1]string{"ingest", "extract", "validate", "review", "done"}

func (s Stage) String() string { return enumName(stageNames[:], s, "stage") }

// Stages lists the pipeline's stages in order.
func Stages() []Stage { return []Stage{StageIngest, StageExtract, StageValidate, StageReview} }

// StageKey is the per-stage effect key: key + ":" + stage.
func StageKey(key string, s Stage) string { return key + ":" + s.String() }

// State is a job's state (seed 004's states plus cancelled; ARCHITECTURE.md, "The pipeline model").
type State uint8

// Job states.
const (
	Pending   State = iota // visible, waiting
	Leased                 // held by one worker under a fencing token
	RetryWait              // failed transiently, invisible until visibleAt
	Succeeded              // acked after its effects were committed
	Dead                   // in the DLQ with a reason code
	Cancelled              // deadline passed or cancelled; terminal, never in the DLQ
	stateCount
)

var stateNames = [stateCount]string{"pending", "leased", "retry_wait", "succeeded", "dead", "cancelled"}

func (s State) String() string { return enumName(stateNames[:], s, "state") }

// Terminal reports whether no automatic path leaves the state. (Dead can be
// left only by an operator's redrive; cancelled never.)
func (s State) Terminal() bool { return s == Succeeded || s == Dead || s == Cancelled }

// Code is a short classified reason: never raw error text (seed 000, 003).
type Code uint8

// Reason and outcome codes.
const (
	CodeNone Code = iota
	CodeOK
	CodeStaleFence
	CodeNotLeased
	CodeNotFound
	CodeDeduped
	CodeIdempotencyConflict
	CodeDuplicateEvent
	CodeTransient
	CodeProviderRateLimited
	CodePermanentError
	CodePoisonSchema
	CodeContextOverflow
	CodeMaxAttemptsExceeded
	CodeBudgetExhausted
	CodeDeadlineExceeded
	CodeRateLimited
	CodeBreakerOpen
	CodeInvalidKey
	CodeNotDead
	CodeCancelledTerminal
	CodeMissingOperator
	codeCount
)

var codeNames = [codeCount]string{
	"", "ok", "stale_fence", "not_leased", "not_found", "deduped", "idempotency_conflict",
	"duplicate_event", "transient_error", "provider_429", "permanent_error", "poison_schema",
	"context_overflow", "max_attempts_exceeded", "budget_exhausted", "deadline_exceeded",
	"rate_limited", "breaker_open", "invalid_key", "not_dead", "cancelled_terminal",
	"missing_operator",
}

func (c Code) String() string { return enumName(codeNames[:], c, "code") }
