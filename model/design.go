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

	BuildKey     func(tenantID, documentID string, operationVersion int) (string, error)
	Commit       func(s *System, r CommitRequest) (CommitResult, error)
	Apply        func(s *System, row OutboxRow) ApplyResult
	FenceOK      func(j *Job, fence uint64) bool
	Decide       func(c RetryConfig, j *Job, err error, now Time, r Rand) Decision
	Exhausted    func(j *Job) bool
	PastDeadline func(j *Job, now Time) bool
	RedriveKey   func(j *Job) string
	Sanitize     func(env *Envelope, cause error)
	Protocol     Protocol
}

// Correct returns the correct design (a fresh copy the caller may modify).
func Correct() *Design {
	return &Design{
		Name:         "correct",
		Source:       "DESIGN.md",
		Doc:          "the design the course documents argue for",
		BuildKey:     BuildIdempotencyKey,
		Commit:       commitDedupe,
		Apply:        applyDeduped,
		FenceOK:      func(j *Job, fence uint64) bool { return j.Fence == fence },
		Decide:       Decide,
		Exhausted:    func(j *Job) bool { return j.Attempt >= j.MaxAttempts },
		PastDeadline: func(j *Job, now Time) bool { return now >= j.DeadlineAt },
		RedriveKey:   sameKey,
		Sanitize:     sanitizeNothing,
		Protocol:     StandardProtocol,
	}
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
