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
// quoting it: a secret is named by its position in [Config.Secrets].
func (s *Suite) leak(text string) string {
	if i := s.secrets.find(text); i >= 0 {
		return fmt.Sprintf("document text or raw error (secret %d)", i+1)
	}
	switch {
	case hasCPF(text):
		return "a CPF number"
	case hasEmail(text):
		return "an e-mail address"
	}
	return ""
}

// checkText checks the text of any event.
func (s *Suite) checkText(e *model.Event) {
	if what := s.leak(e.Text); what != "" {
		s.report(DLQHygiene, e.Job, fmt.Sprintf("%v event text holds %s", e.Kind, what), e.Seq)
	}
}

// checkIdentity checks the key and tenant a job brings, once per job.
func (s *Suite) checkIdentity(e *model.Event) {
	for _, f := range [...]field{{"key", e.Key}, {"tenant", e.Tenant}} {
		if what := s.leak(f.val); what != "" {
			s.report(DLQHygiene, e.Job, fmt.Sprintf("%v %s holds %s", e.Job, f.name, what), e.Seq)
		}
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

// finishHygiene scans the final DLQ and audit log.
func (s *Suite) finishHygiene(v *finalView, out *violations) {
	for i := range v.f.DLQ {
		s.checkEnvelope(&v.f.DLQ[i], out)
	}
	for _, a := range v.f.Audit {
		for _, f := range [...]field{{"action", a.Action}, {"operator", a.Operator}, {"tenant", a.Tenant}} {
			if what := s.leak(f.val); what != "" {
				out.add(DLQHygiene, a.OldJob, fmt.Sprintf("audit entry of %v: %s holds %s", a.OldJob, f.name, what))
			}
		}
	}
}

func (s *Suite) checkEnvelope(env *model.Envelope, out *violations) {
	var seq uint64
	if j := s.known(env.Job); j != nil {
		seq = j.dlqSeq
	}
	if !isDLQReason(env.Reason) {
		out.add(DLQHygiene, env.Job, fmt.Sprintf("DLQ entry of %v has reason %q, not a DLQ reason code", env.Job, env.Reason.String()), seq)
	}
	if env.RawError != "" {
		out.add(DLQHygiene, env.Job, fmt.Sprintf("DLQ entry of %v keeps the raw error text", env.Job), seq)
	}
	for _, f := range envelopeFields(env) {
		if what := s.leak(f.val); what != "" {
			out.add(DLQHygiene, env.Job, fmt.Sprintf("DLQ entry of %v: %s holds %s", env.Job, f.name, what), seq)
		}
	}
}

// envelopeFields lists the envelope's strings, except RawError, which
// must be empty and is reported as such.
func envelopeFields(env *model.Envelope) []field {
	fs := []field{
		{"correlationId", env.CorrelationID}, {"tenant", env.Tenant}, {"originalQueue", env.OriginalQueue},
		{"agentId", env.AgentID}, {"agentVersion", env.AgentVersion}, {"promptVersion", env.PromptVersion},
		{"modelName", env.ModelName},
	}
	for _, p := range env.SchemaPaths {
		fs = append(fs, field{"schemaPath", p})
	}
	return fs
}
