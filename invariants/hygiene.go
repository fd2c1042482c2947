package invariants

import (
	"fmt"
	"slices"

	"github.com/durasim/durasim/model"
)

// DLQ hygiene: DLQ reasons are codes; no document text, raw error or
// personal data (CPF numbers, e-mail addresses) anywhere in the DLQ, the
// audit log or the text of any event.

// field is a named string to scan.
type field struct{ name, val string }

// dlqReasons are the codes a DLQ entry may give as its reason.
var dlqReasons = [...]model.Code{
	model.CodePermanentError, model.CodeMaxAttemptsExceeded, model.CodeBudgetExhausted,
	model.CodePoisonSchema, model.CodeContextOverflow, model.CodeIdempotencyConflict,
}

func isDLQReason(c model.Code) bool { return slices.Contains(dlqReasons[:], c) }

// leak says what forbidden content text holds ("" if none), without
// quoting it: a secret is named by its position in [Config.Secrets]. It
// also returns the excerpt check's verdict on text (excerptOf).
func (s *Suite) leak(text string) (what string, excerpt int32) {
	secret, canary := s.excerpts.find(text)
	excerpt = excerptOf(secret, canary)
	// A text can hold a whole secret only if it shares a window with one,
	// or some secret is shorter than a window: most texts need no look-up.
	if secret >= 0 || s.excerpts.short {
		if i := s.secrets.find(text); i >= 0 {
			return fmt.Sprintf("document text or raw error (secret %d)", i+1), excerpt
		}
	}
	switch {
	case hasCPF(text):
		return "a CPF number", excerpt
	case hasEmail(text):
		return "an e-mail address", excerpt
	}
	return "", excerpt
}

// checkText checks the text of any event, once per distinct text, and
// keeps its excerpt verdict for the end.
func (s *Suite) checkText(e *model.Event) {
	if !s.noteText(e) {
		return // a text seen before got its verdict then
	}
	what, excerpt := s.leak(e.Text)
	if what != "" {
		s.report(DLQHygiene, e.Job, fmt.Sprintf("%v event text holds %s", e.Kind, what), e.Seq)
		s.leaked[e.Text] = true
	}
	s.noteExcerpt(checked{event: e.Kind, what: "text", val: e.Text, job: e.Job, seq: e.Seq, index: -1}, excerpt)
}

// checkIdentity checks the key and tenant a job brings, once per job.
func (s *Suite) checkIdentity(e *model.Event) {
	for _, f := range [...]field{{"key", e.Key}, {"tenant", e.Tenant}} {
		what, excerpt := s.leak(f.val)
		if what != "" {
			s.report(DLQHygiene, e.Job, fmt.Sprintf("%v %s holds %s", e.Job, f.name, what), e.Seq)
			s.leaked[f.val] = true
		}
		s.noteExcerpt(checked{root: f.name, val: f.val, job: e.Job, seq: e.Seq, index: -1}, excerpt)
	}
}

// dlqWrite checks the reason of a DLQ write.
func (s *Suite) dlqWrite(e *model.Event, j *job) {
	if j != nil {
		j.dlqSeq = e.Seq
	}
	if e.OK && !isDLQReason(e.Code) {
		s.report(DLQHygiene, e.Job, fmt.Sprintf("%v dead-lettered with reason %q, not a DLQ reason code", e.Job, e.Code.String()), e.Seq)
	}
}

// finishHygiene checks the DLQ's reasons and raw errors, then every string
// the run handed out: those of the final DLQ and audit log (found by
// reflection) for whole secrets and personal data, and all of them for
// excerpts of secrets and canary tokens.
func (s *Suite) finishHygiene(v *finalView, out *violations) {
	for i := range v.f.DLQ {
		s.checkEnvelope(&v.f.DLQ[i], out)
	}
	strs := s.handedOut(v)
	for i := range strs {
		c := &strs[i]
		switch {
		case c.field == "RawError":
			c.excerpt = noExcerpt // reported by checkEnvelope, whatever it holds
		case c.final:
			var what string
			if what, c.excerpt = s.leak(c.val); what != "" {
				out.add(DLQHygiene, c.job, fmt.Sprintf("%s holds %s", c.where(), what), c.seq)
				c.excerpt = noExcerpt
			}
		case len(s.leaked) > 0 && s.leaked[c.val]: // an event's, reported whole as it came
			c.excerpt = noExcerpt
		}
	}
	s.finishExcerpts(strs, out)
}

// dlqSeqOf is the last DLQ write of a job, if the history has one.
func (s *Suite) dlqSeqOf(id model.JobID) uint64 {
	if j := s.known(id); j != nil {
		return j.dlqSeq
	}
	return 0
}

func (s *Suite) checkEnvelope(env *model.Envelope, out *violations) {
	seq := s.dlqSeqOf(env.Job)
	if !isDLQReason(env.Reason) {
		out.add(DLQHygiene, env.Job, fmt.Sprintf("DLQ entry of %v has reason %q, not a DLQ reason code", env.Job, env.Reason.String()), seq)
	}
	if env.RawError != "" {
		out.add(DLQHygiene, env.Job, fmt.Sprintf("DLQ entry of %v keeps the raw error text", env.Job), seq)
	}
}
