package model

import (
	"fmt"
	"sort"
	"strings"
)

// Step is one step of a worker's per-stage protocol.
type Step uint8

// Worker steps. The simulator interprets a protocol step by step and crosses
// the named boundary that follows each step.
const (
	StepWork    Step = iota // run the stage (extraction etc.), then after_extract
	StepCommit              // CommitResultWithEvent, then after_commit_before_ack
	StepAck                 // Advance (or Ack after the last stage), then after_ack
	StepDBWrite             // dual write: result to the database, then after_db_write_before_publish
	StepPublish             // dual write: publish straight to the broker
)

// RelayStep is one step of the relay's protocol for an outbox row.
type RelayStep uint8

// Relay steps; the simulator crosses the relay's named boundary between
// the first and the second.
const (
	RelayPublish RelayStep = iota // hand the row's event to the broker
	RelayMark                     // mark the row published
)

// AcceptStep is one step of the API's accept protocol (seed 004's async
// request-reply).
type AcceptStep uint8

// Accept steps; the simulator crosses after_accept_before_enqueue after the
// first step.
const (
	AcceptReceive AcceptStep = iota // the request arrived
	AcceptEnqueue                   // the job is durably enqueued
	AcceptReply                     // the client gets its job id (202)
)

// Protocol is the order of a worker's steps for each stage.
type Protocol struct {
	Steps      []Step
	Heartbeats bool // extend the lease while a long step runs
}

// StandardProtocol is lease → [heartbeat]* → work → commit → ack per stage.
var StandardProtocol = Protocol{Steps: []Step{StepWork, StepCommit, StepAck}, Heartbeats: true}

// Design is the set of seams where the course documents describe a mistake.
// Each field has the correct behaviour in [Correct]; a naive variant replaces
// exactly the seam it is about.
type Design struct {
	Name   string // the CLI's -variant value ("correct" for the default)
	Source string // where the mistake is described (seed and section)
	Doc    string // what the variant does wrong, in one sentence

	BuildKey func(tenantID, documentID string, operationVersion int) (string, error)
	Commit   func(s *System, r CommitRequest) (CommitResult, error)
	Apply    func(s *System, row OutboxRow) ApplyResult
	FenceOK  func(j *Job, fence uint64) bool
	Decide   func(c RetryConfig, j *Job, err error, now Time, r Rand) Decision
	// Exhausted says why a redelivered job may not make another attempt
	// (CodeNone: it may).
	Exhausted    func(j *Job) Code
	PastDeadline func(j *Job, now Time) bool
	// Revivable says which terminal states an operator may bring back.
	Revivable func(st State) bool
	// Redrive prepares a dead job for another try (key and checkpoint).
	Redrive func(j *Job)
	// RedriveThrottled says whether bulk redrive is rate-limited.
	RedriveThrottled bool
	// Reprocess is the operator's "redo this dead job" command.
	Reprocess func(s *System, actor Actor, id JobID, operator string) (JobID, error)
	// Visible says whether tenant may see job j's status.
	Visible  func(j *Job, tenant string) bool
	Sanitize func(env *Envelope, cause error)
	Protocol Protocol
	Relay    []RelayStep
	Accept   []AcceptStep
}

// Correct returns the correct design (a fresh copy the caller may modify).
func Correct() *Design {
	return &Design{
		Name:             "correct",
		Source:           "ARCHITECTURE.md",
		Doc:              "the design the course documents argue for",
		BuildKey:         BuildIdempotencyKey,
		Commit:           commitDedupe,
		Apply:            applyDeduped,
		FenceOK:          func(j *Job, fence uint64) bool { return j.Fence == fence },
		Decide:           Decide,
		Exhausted:        exhausted,
		PastDeadline:     func(j *Job, now Time) bool { return now >= j.DeadlineAt },
		Revivable:        func(st State) bool { return st == Dead },
		Redrive:          func(*Job) {}, // same key, same checkpoint: nothing to change
		RedriveThrottled: true,
		Reprocess:        (*System).reprocessAudited,
		Visible:          func(j *Job, tenant string) bool { return j.Tenant == tenant },
		Sanitize:         sanitizeNothing,
		Protocol:         StandardProtocol,
		Relay:            []RelayStep{RelayPublish, RelayMark},
		Accept:           []AcceptStep{AcceptReceive, AcceptEnqueue, AcceptReply},
	}
}

// exhausted is the correct redelivery check: the attempt ceiling and the
// token budget bound redeliveries just as they bound retries.
func exhausted(j *Job) Code {
	switch {
	case j.Attempt >= j.MaxAttempts:
		return CodeMaxAttemptsExceeded
	case j.TokensSpent >= j.TokenBudget:
		return CodeBudgetExhausted
	}
	return CodeNone
}

// variant builds a naive design from the correct one.
func variant(name, source, doc string, change func(d *Design)) func() *Design {
	return func() *Design {
		d := Correct()
		d.Name, d.Source, d.Doc = name, source, doc
		change(d)
		return d
	}
}

// catalogueEntry is one registered naive variant.
type catalogueEntry struct {
	name string
	make func() *Design
}

// catalogue holds the naive designs, kept sorted by name.
var catalogue []catalogueEntry

func register(name, source, doc string, change func(d *Design)) {
	catalogue = append(catalogue, catalogueEntry{name, variant(name, source, doc, change)})
	sort.Slice(catalogue, func(i, j int) bool { return catalogue[i].name < catalogue[j].name })
}

// VariantNames lists the naive variants, sorted.
func VariantNames() []string {
	names := make([]string, len(catalogue))
	for i, e := range catalogue {
		names[i] = e.name
	}
	return names
}

// LookupDesign returns the design called name ("correct" or a variant).
func LookupDesign(name string) (*Design, error) {
	if name == "" || name == "correct" {
		return Correct(), nil
	}
	for _, e := range catalogue {
		if e.name == name {
			return e.make(), nil
		}
	}
	return nil, fmt.Errorf("unknown variant %q (known: correct, %s)", name, strings.Join(VariantNames(), ", "))
}
