package invariants

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
)

// Reprocess and redrive: only dead jobs come back (cancelled is terminal);
// a redrive keeps the job's key and is rate-limited globally; a reprocess
// names an operator, creates a new job at the next operation version, is
// rate-limited per tenant; both are in the audit log.

// operatorLog is what the checker keeps of operator actions.
type operatorLog struct {
	wasted      int // redrives of a job whose failure cause was unchanged
	redrive     bucket
	redrives    []redriveEntry
	reprocesses []reprocessRec
}

// reset empties the log, keeping its storage, with a full redrive bucket.
func (l *operatorLog) reset(c model.BucketConfig) {
	l.redrive.reset(c)
	l.wasted = 0
	l.redrives = l.redrives[:0]
	l.reprocesses = reuse.Slice(l.reprocesses)
}

type redriveEntry struct {
	seq uint64
	job model.JobID
}

type reprocessRec struct {
	seq      uint64
	old, new model.JobID
	operator string
}

// revivable checks that an operator brought back a dead job.
func (s *Suite) revivable(e *model.Event, j *job) {
	switch {
	case j == nil || !j.enqueued:
	case j.state == model.Cancelled:
		s.report(OperatorActions, e.Job, fmt.Sprintf("%v of cancelled %v: cancelled is terminal", e.Kind, e.Job), j.endSeq, e.Seq)
	case j.state != model.Dead:
		s.report(OperatorActions, e.Job, fmt.Sprintf("%v of %v while %v: only dead jobs come back", e.Kind, e.Job, j.state), e.Seq)
	}
}

// redrive checks an accepted redrive.
func (s *Suite) redrive(e *model.Event, j *job) {
	if !e.OK {
		s.operatorRefusal(e, j)
		s.limitRefusal(e, j, &s.ops.redrive, "the limit")
		return
	}
	s.revivable(e, j)
	if j != nil && j.enqueued && e.Key != j.key {
		s.report(OperatorActions, e.Job, fmt.Sprintf("redrive changed the key of %v from %s to %s", e.Job, j.key, e.Key), j.enqSeq, e.Seq)
	}
	if b := &s.ops.redrive; !b.take(e.At, e.Seq) {
		s.report(OperatorActions, e.Job, fmt.Sprintf("redrive of %v beyond the limit of %d per %s",
			e.Job, b.cfg.Capacity, millis(b.cfg.Refill)), append(slices.Clip(b.recent()), e.Seq)...)
	}
	s.ops.redrives = append(s.ops.redrives, redriveEntry{seq: e.Seq, job: e.Job})
}

// reprocess checks an accepted reprocess.
func (s *Suite) reprocess(e *model.Event, j *job) {
	if !e.OK {
		s.operatorRefusal(e, j)
		if tenant := s.tenantOf(e, j); e.Code == model.CodeRateLimited {
			s.limitRefusal(e, j, s.tenantBucket(tenant), "tenant "+tenant+"'s limit")
		}
		return
	}
	op := operatorOf(e.Text)
	if op == "" {
		s.report(OperatorActions, e.Job, fmt.Sprintf("reprocess of %v names no operator", e.Job), e.Seq)
	}
	s.revivable(e, j)
	s.newVersion(e, j)
	tenant := s.tenantOf(e, j)
	if b := s.tenantBucket(tenant); !b.take(e.At, e.Seq) {
		s.report(OperatorActions, e.Job, fmt.Sprintf("reprocess of %v beyond tenant %s's limit of %d per %s",
			e.Job, tenant, b.cfg.Capacity, millis(b.cfg.Refill)), append(slices.Clip(b.recent()), e.Seq)...)
	}
	s.ops.reprocesses = append(s.ops.reprocesses, reprocessRec{seq: e.Seq, old: e.Job, new: e.Other, operator: op})
}

// tenantOf is the tenant an operator call on j is charged to: the job's,
// as its enqueue gave it (not the event's), once the job is known.
func (s *Suite) tenantOf(e *model.Event, j *job) string {
	if j != nil && j.enqueued {
		return j.tenant
	}
	return e.Tenant
}

// limitRefusal judges the other direction of a rate limit: a call refused
// as rate_limited must find the oracle's bucket (b, replayed from the
// accepted calls' times and the configured capacity and refill) empty. A
// limiter keyed on the wrong identity, shared among tenants or never
// refilled refuses with a token left. A justified refusal is kept on the
// job, with when the next token comes (liveness names it).
func (s *Suite) limitRefusal(e *model.Event, j *job, b *bucket, limit string) {
	if e.Code != model.CodeRateLimited {
		return
	}
	if b.free(e.At) {
		s.report(OperatorActions, e.Job, fmt.Sprintf("%v of %v refused as rate_limited at %s, with a token of %s of %d per %s left",
			e.Kind, e.Job, millis(e.At), limit, b.cfg.Capacity, millis(b.cfg.Refill)), append(slices.Clip(b.recent()), e.Seq)...)
		return
	}
	if j != nil && j.enqueued && b.limited() {
		j.sh.limited, j.sh.refillAt = e.Seq, b.nextToken()
	}
}

// operatorRefusal checks the reason a redrive or reprocess was refused for
// the job's state by the history: a cancelled job is terminal, any other
// job but a dead one is not in the DLQ, and a dead job at the largest
// operationVersion has no next version to be reprocessed at (an invalid
// key; refused before the rate limit, after the operator check).
func (s *Suite) operatorRefusal(e *model.Event, j *job) {
	if j == nil || !j.enqueued || e.Code == model.CodeNotFound { // (a known job refused as not found: Record)
		return
	}
	want := model.CodeNone
	switch {
	case j.state == model.Cancelled:
		want = model.CodeCancelledTerminal
	case j.state != model.Dead:
		want = model.CodeNotDead
	case e.Kind == model.EvReprocess && j.version >= math.MaxInt32 && e.Code != model.CodeMissingOperator:
		want = model.CodeInvalidKey
	}
	known := e.Code == model.CodeCancelledTerminal || e.Code == model.CodeNotDead || e.Code == model.CodeInvalidKey
	if (known || want != model.CodeNone) && e.Code != want {
		why := ""
		switch {
		case want == model.CodeInvalidKey:
			why = fmt.Sprintf(" at v%d, the largest operationVersion: no next version (%v)", j.version, want)
		case e.Code == model.CodeInvalidKey && j.state == model.Dead:
			why = fmt.Sprintf(" at v%d, which has a next version", j.version)
		}
		s.disagree(e.Job, fmt.Sprintf("%v of %v refused as %v, but the history has the job %v%s", e.Kind, e.Job, e.Code, j.state, why), j.lastSeq, e.Seq)
	}
}

// operatorOf returns X from an event text "operator=X ...".
func operatorOf(text string) string {
	op, ok := strings.CutPrefix(text, "operator=")
	if !ok {
		return ""
	}
	op, _, _ = strings.Cut(op, " ")
	return op
}

// newVersion checks that a reprocess enqueued a new job at the old job's
// operation version + 1.
func (s *Suite) newVersion(e *model.Event, old *job) {
	nj := s.known(e.Other)
	if nj == nil || !nj.enqueued || e.Other == e.Job {
		s.report(OperatorActions, e.Job, fmt.Sprintf("reprocess of %v enqueued no new job (other=%v)", e.Job, e.Other), e.Seq)
		return
	}
	if old != nil && old.enqueued && nj.version != old.version+1 {
		s.report(OperatorActions, e.Job, fmt.Sprintf("reprocess of %v (v%d) created %v at v%d, want v%d",
			e.Job, old.version, e.Other, nj.version, old.version+1), old.enqSeq, nj.enqSeq, e.Seq)
	}
	if e.N != nj.version {
		s.disagree(e.Job, fmt.Sprintf("reprocess of %v announces version %d, %v was enqueued at v%d", e.Job, e.N, e.Other, nj.version), nj.enqSeq, e.Seq)
	}
}

func (s *Suite) tenantBucket(tenant string) *bucket {
	b := s.buckets[tenant]
	if b == nil {
		nb := newBucket(s.cfg.Model.Reprocess)
		b = &nb
		s.buckets[tenant] = b
	}
	return b
}

// auditLink is what an audit entry must link for a reprocess.
type auditLink struct {
	old, new model.JobID
	operator string
}

// finishOperator checks that every accepted reprocess and redrive is in
// the audit log.
func (s *Suite) finishOperator(v *finalView, out *violations) {
	s.links, s.redriven = reuse.Map(s.links), reuse.Map(s.redriven)
	links, redriven := s.links, s.redriven
	for _, a := range v.f.Audit {
		switch a.Action {
		case "reprocess":
			links[auditLink{a.OldJob, a.NewJob, a.Operator}] = true
		case "redrive":
			if a.OldJob == a.NewJob {
				redriven[a.OldJob]++
			}
		}
	}
	for _, r := range s.ops.reprocesses {
		if r.operator != "" && !links[auditLink{r.old, r.new, r.operator}] {
			out.add(OperatorActions, r.old, fmt.Sprintf("reprocess of %v into %v by operator %s is not in the audit log",
				r.old, r.new, r.operator), r.seq)
		}
	}
	for _, r := range s.ops.redrives {
		if redriven[r.job]--; redriven[r.job] < 0 {
			out.add(OperatorActions, r.job, fmt.Sprintf("redrive of %v is not in the audit log", r.job), r.seq)
		}
	}
}
