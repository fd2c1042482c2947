package faults

import (
	"slices"

	"github.com/durasim/durasim/model"
)

// docFate is what the swarm decided for one document, and which of those
// faults took effect.
type docFate struct {
	drawn             bool
	permanent, poison bool
	persistent        bool       // fails transiently on every attempt (attempt=*)
	deadline          model.Time // 0: none
	resubmit, edited  bool       // its client submits it again, the same or edited
	crashLoop         bool       // every worker that leases it dies
	malformed         bool       // its client's first request is malformed
	took              [KindCount]bool
	maxAttempt        int32   // highest attempt the swarm has rolled transient for
	failed            []int32 // attempts the swarm failed transiently
}

// maxDoc bounds the documents the swarm keeps a fate for.
const maxDoc = 1 << 20

// fate returns the swarm's fate for doc, drawing it on the first query for
// the doc when draw is set; nil without a swarm, for an out-of-range doc, or
// when the fate is not drawn yet and draw is not set.
func (in *Injector) fate(doc int32, draw bool) *docFate {
	if in.swarm == nil || doc < 1 || doc > maxDoc {
		return nil
	}
	i := int(doc - 1)
	if i >= len(in.docs) {
		if !draw {
			return nil
		}
		if i < cap(in.docs) {
			in.docs = in.docs[:i+1] // (undrawn since the Reset: see reset)
		} else {
			in.docs = append(in.docs[:cap(in.docs)], make([]docFate, i+1-cap(in.docs))...)
		}
	}
	d := &in.docs[i]
	if !d.drawn {
		if !draw {
			return nil
		}
		*d = in.drawFate()
	}
	return d
}

// drawFate rolls permanent, poison, deadline pressure, a persistent
// transient failure, a resubmission (the same and edited), a crash loop
// and a malformed first request, in that order. A persistent failure (a dependency down
// for the whole fault phase) is what exhausts attempts and budgets and sends
// work to the DLQ for a redrive; per-attempt rolls alone rarely do.
func (in *Injector) drawFate() docFate {
	d := docFate{drawn: true}
	d.permanent = in.rollRate(Permanent)
	d.poison = in.rollRate(Poison)
	if in.rollRate(DeadlinePressure) {
		d.deadline = between(in.r, in.params.Lease/10, in.params.Lease)
	}
	d.persistent = in.rollRate(Transient)
	d.resubmit = in.rollRate(Resubmit)
	d.edited = in.rollRate(ResubmitEdited)
	d.crashLoop = in.rollRate(CrashLoop)
	d.malformed = in.rollRate(Malformed)
	return d
}

// rollRate rolls kind k's rate, ignoring the fault budget (per-document
// faults count only when they take effect).
func (in *Injector) rollRate(k Kind) bool {
	return in.swarm.Enabled(k) && in.r.Chance(in.swarm.Kinds[k].Rate)
}

// WorkError is the fault, if any, that stage work on doc's given attempt
// meets: at StageExtract a permanent fault ([model.CodeContextOverflow])
// before a transient one ([model.CodeTransient]); at StageValidate a poison
// document ([model.CodePoisonSchema]). Explicit faults come before the
// swarm's; the swarm decides per document once, on the first query for the
// document, and per (document, attempt) for transient failures.
func (in *Injector) WorkError(doc int32, stage model.Stage, attempt int32) model.Code {
	if in.stopped {
		return model.CodeNone
	}
	in.fate(doc, true)
	switch {
	case stage == model.StageValidate && in.docFault(doc, Poison, attempt):
		return model.CodePoisonSchema
	case stage == model.StageExtract && in.docFault(doc, Permanent, attempt):
		return model.CodeContextOverflow
	case stage == model.StageExtract && in.docFault(doc, Transient, attempt):
		return model.CodeTransient
	}
	return model.CodeNone
}

// docFault reports whether a fault of kind k strikes doc's attempt.
func (in *Injector) docFault(doc int32, k Kind, attempt int32) bool {
	if i := in.plannedDocFault(doc, k, attempt); i >= 0 {
		in.takePlanned(i)
		return true
	}
	d := in.fate(doc, false)
	switch {
	case d == nil:
		return false
	case k == Transient:
		return in.swarmTransient(d, doc, attempt)
	}
	return (k == Permanent && d.permanent || k == Poison && d.poison) && in.takeFate(d, Fault{Kind: k, Doc: doc})
}

// plannedDocFault finds the explicit fault of kind k that strikes doc's
// attempt, or -1: the first in plan order, except that a transient fault
// for this very attempt comes before one for every attempt (attempt=*), so
// that which fault is credited never depends on the plan's order and a
// realized plan credits the same faults when replayed.
func (in *Injector) plannedDocFault(doc int32, k Kind, attempt int32) int {
	every := -1
	for i, p := range in.plan {
		switch {
		case p.Kind != k || p.Doc != doc:
		case k != Transient || p.Attempt == attempt:
			return i
		case p.Attempt == 0 && every < 0:
			every = i
		}
	}
	return every
}

// swarmTransient rolls once per (doc, attempt) the first time an attempt
// beyond those already rolled is queried, and remembers the failures.
func (in *Injector) swarmTransient(d *docFate, doc, attempt int32) bool {
	if d.persistent && in.takeFate(d, Fault{Kind: Transient, Doc: doc}) {
		return true
	}
	if attempt <= d.maxAttempt {
		return slices.Contains(d.failed, attempt)
	}
	d.maxAttempt = attempt
	if !in.roll(Transient) {
		return false
	}
	d.failed = append(d.failed, attempt)
	in.take(Fault{Kind: Transient, Doc: doc, Attempt: attempt})
	return true
}

// takeFate makes a fault the swarm decided for a document take effect, the
// first time only and only while the budget lasts.
func (in *Injector) takeFate(d *docFate, f Fault) bool {
	if d.took[f.Kind] {
		return true
	}
	if in.stopped || in.total >= in.params.MaxFaults {
		return false
	}
	d.took[f.Kind] = true
	in.take(f)
	return true
}

// Deadline is the deadline override for doc, measured from its creation:
// the first explicit deadline fault for doc, else the swarm's. After
// [Injector.Stop] only overrides already handed out are returned.
func (in *Injector) Deadline(doc int32) (model.Time, bool) {
	for i, p := range in.plan {
		if p.Kind == DeadlinePressure && p.Doc == doc {
			if in.stopped && !p.done {
				return 0, false
			}
			in.takePlanned(i)
			return p.For, true
		}
	}
	d := in.fate(doc, !in.stopped)
	if d == nil || d.deadline == 0 || !in.takeFate(d, Fault{Kind: DeadlinePressure, Doc: doc, For: d.deadline}) {
		return 0, false
	}
	return d.deadline, true
}

// docOnce reports whether a once-per-document fault of kind k strikes doc:
// the first explicit one in the plan, else the swarm's fate for doc.
func (in *Injector) docOnce(doc int32, k Kind) bool {
	if in.stopped {
		return false
	}
	for i, p := range in.plan {
		if p.Kind == k && p.Doc == doc {
			in.takePlanned(i)
			return true
		}
	}
	d := in.fate(doc, true)
	if d == nil {
		return false
	}
	switch k {
	case Resubmit:
		return d.resubmit && in.takeFate(d, Fault{Kind: k, Doc: doc})
	case ResubmitEdited:
		return d.edited && in.takeFate(d, Fault{Kind: k, Doc: doc})
	case CrashLoop:
		return d.crashLoop && in.takeFate(d, Fault{Kind: k, Doc: doc})
	case Malformed:
		return d.malformed && in.takeFate(d, Fault{Kind: k, Doc: doc})
	}
	return false
}

// Resubmit says whether doc's client, having got its reply, submits the
// document again: the same document (again) or an edited one under the
// same id (edited), which the API must refuse as a conflict.
func (in *Injector) Resubmit(doc int32) (again, edited bool) {
	return in.docOnce(doc, Resubmit), in.docOnce(doc, ResubmitEdited)
}

// CrashLoop says whether a worker that has just leased doc's job dies
// (a document that crashes every worker touching it), while faults last.
func (in *Injector) CrashLoop(doc int32) bool { return in.docOnce(doc, CrashLoop) }

// Malformed says whether the first request for doc is malformed (an
// invalid tenant id, no document id, a version out of range): the API must
// refuse it, and the client then sends a well-formed one.
func (in *Injector) Malformed(doc int32) bool { return in.docOnce(doc, Malformed) }
