package model

import (
	"errors"
	"fmt"
)

// Sentinel errors for expected outcomes (a stale fence is expected in a
// system with zombies; it is not a bug).
var (
	ErrStaleFence      = errors.New("stale fencing token")
	ErrNotLeased       = errors.New("job is not leased")
	ErrNotFound        = errors.New("job not found")
	ErrNotDead         = errors.New("job is not in the DLQ")
	ErrCancelled       = errors.New("cancelled jobs have no path back")
	ErrRateLimited     = errors.New("rate limited")
	ErrMissingOperator = errors.New("reprocess requires an operator id")
	ErrBreakerOpen     = errors.New("circuit breaker open: no lease")
	ErrNoNextVersion   = errors.New("reprocess needs a next operationVersion: the job is at the largest")
)

// RefusalCode is the reason code of a refused call, as its caller reads
// the error it got back: what the caller records of the refusal.
func RefusalCode(err error) Code {
	if err == nil {
		return CodeNone
	}
	for _, r := range refusals { // most refusals are a sentinel itself
		if err == r.err {
			return r.code
		}
	}
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return r.code
		}
	}
	if isConflict(err) {
		return CodeIdempotencyConflict
	}
	return CodeInvalidKey // a request the API would not take
}

// refusals are the sentinel errors of refused calls and their codes.
var refusals = [...]struct {
	err  error
	code Code
}{
	{ErrStaleFence, CodeStaleFence}, {ErrNotLeased, CodeNotLeased}, {ErrNotFound, CodeNotFound},
	{ErrNotDead, CodeNotDead}, {ErrCancelled, CodeCancelledTerminal}, {ErrRateLimited, CodeRateLimited},
	{ErrMissingOperator, CodeMissingOperator}, {ErrBreakerOpen, CodeBreakerOpen}, {ErrNoNextVersion, CodeInvalidKey},
}

// isConflict reports whether err is an idempotency conflict. (Its target
// escapes to the heap: callers test the sentinel errors first.)
func isConflict(err error) bool {
	var conflict *IdempotencyConflictError
	return errors.As(err, &conflict)
}

// IdempotencyConflictError is returned when a key is committed again with a
// different payload hash: never silent reuse (seed 000).
type IdempotencyConflictError struct {
	Key string
}

func (e *IdempotencyConflictError) Error() string {
	return e.Key + " already committed with a different payload"
}

// FenceError says which fence was presented and which one is current.
type FenceError struct {
	Job       JobID
	Presented uint64
	Current   uint64
}

func (e *FenceError) Error() string {
	return fmt.Sprintf("%v: stale fence %d (current %d)", e.Job, e.Presented, e.Current)
}

// Unwrap lets errors.Is(err, ErrStaleFence) work.
func (e *FenceError) Unwrap() error { return ErrStaleFence }

// WorkError is a failure of a stage's work (extraction, validation). Code
// is the classified reason; Raw is what the failing library said, which may
// quote the document and therefore must never be stored or printed.
type WorkError struct {
	Code Code
	Raw  string
	// SchemaPaths are the JSON paths a schema validator flagged (seed 003's
	// schemaErrors); paths, unlike messages, carry no content.
	SchemaPaths []string
}

func (e *WorkError) Error() string { return e.Code.String() }

// Class is the retry policy's classification of an error (seed 000).
type Class uint8

// Error classes.
const (
	Transient Class = iota
	Permanent
	CancelledClass
)

func (c Class) String() string {
	return enumName([]string{"transient", "permanent", "cancelled"}, c, "class")
}

// Classify maps an error to transient, permanent or cancelled. Unknown errors
// are transient: the attempt ceiling, the deadline and the budget still bound
// them. Seed 003's classifier: schema errors, context overflow and FK/unique
// violations are permanent (poison).
func Classify(err error) Class {
	var we *WorkError
	if errors.As(err, &we) {
		switch we.Code {
		case CodePermanentError, CodePoisonSchema, CodeContextOverflow:
			return Permanent
		case CodeDeadlineExceeded:
			return CancelledClass
		}
		return Transient
	}
	var conflict *IdempotencyConflictError
	if errors.As(err, &conflict) {
		return Permanent
	}
	return Transient
}

// codeOf returns the classified code of err, never its text.
func codeOf(err error) Code {
	var we *WorkError
	if errors.As(err, &we) {
		return we.Code
	}
	var conflict *IdempotencyConflictError
	if errors.As(err, &conflict) {
		return CodeIdempotencyConflict
	}
	return CodeTransient
}
