package invariants

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// Tenant isolation: no key, result, effect or status answer crosses
// tenants. A key belongs to the tenant of the first durable enqueue that
// used it; every later event carrying the key must carry that tenant.

// owner is the tenant a key belongs to and the enqueue that decided it.
type owner struct {
	tenant string
	seq    uint64
	// applied is, for exactly-once-effect, the first applied effect of each
	// stage under the key: kept here, it costs no map entry of its own.
	applied [model.StageDone]uint64
	rec     keyRecord // the job, payload and commits under the key
}

// claimKey makes the enqueuing tenant the owner of a key nobody owns yet.
func (s *Suite) claimKey(e *model.Event, j *job) {
	i, ok := s.owners[e.Key]
	if !ok {
		s.ownerList = append(s.ownerList, owner{tenant: e.Tenant, seq: e.Seq})
		i = int32(len(s.ownerList))
		s.owners[e.Key] = i
	}
	j.owner = i
	j.keyOwned = s.ownerList[i-1].tenant == e.Tenant
}

// ownerOf returns the owner of key, if it has one; j, when not nil, is
// the event's job, whose own key's owner needs no map lookup.
func (s *Suite) ownerOf(key string, j *job) *owner {
	if j != nil && j.owner != 0 && key == j.key {
		return &s.ownerList[j.owner-1]
	}
	if i, ok := s.owners[key]; ok {
		return &s.ownerList[i-1]
	}
	return nil
}

// checkKey checks an event carrying a key. The common case, an event with
// its job's own key and tenant, costs two string comparisons.
func (s *Suite) checkKey(e *model.Event, j *job, own bool) {
	if own && j.keyOwned {
		return
	}
	o := s.ownerOf(e.Key, j)
	owned := o != nil
	if owned && e.Tenant != "" && e.Tenant != o.tenant {
		s.report(TenantIsolation, e.Job, fmt.Sprintf("key %s of tenant %s carried by tenant %s (%v)",
			e.Key, o.tenant, e.Tenant, e.Kind), o.seq, e.Seq)
		return
	}
	if j == nil || !j.enqueued || !carriesResult(e.Kind) {
		return
	}
	switch {
	case owned && j.tenant != o.tenant:
		s.report(TenantIsolation, e.Job, fmt.Sprintf("%v of tenant %s: %v under key %s of tenant %s",
			e.Job, j.tenant, e.Kind, e.Key, o.tenant), o.seq, j.enqSeq, e.Seq)
	case e.Tenant != "" && e.Tenant != j.tenant:
		s.report(TenantIsolation, e.Job, fmt.Sprintf("%v of tenant %s: %v for tenant %s",
			e.Job, j.tenant, e.Kind, e.Tenant), j.enqSeq, e.Seq)
	}
}

// carriesResult says whether events of kind k carry a stage result or
// effect, which belongs to the tenant of the job that produced it.
func carriesResult(k model.EventKind) bool {
	switch k {
	case model.EvCommit, model.EvDBWrite, model.EvPublish, model.EvApply:
		return true
	}
	return false
}

// status checks a status query both ways: an answer goes only to the
// job's owner, and the owner of a job the history holds is never told
// it was not found (the endpoint's other direction: refusing too much).
func (s *Suite) status(e *model.Event) {
	j := s.known(e.Job)
	if j == nil || !j.enqueued {
		return
	}
	if !e.OK {
		if e.Code == model.CodeNotFound && e.Tenant != "" && e.Tenant == j.tenant {
			s.disagree(e.Job, fmt.Sprintf("status of %v answered not_found to its own tenant %s, but the history has it %v",
				e.Job, e.Tenant, j.state), j.enqSeq, e.Seq)
		}
		return
	}
	if j.tenant != e.Tenant {
		s.report(TenantIsolation, e.Job, fmt.Sprintf("status of %v (tenant %s) answered to tenant %s",
			e.Job, j.tenant, e.Tenant), j.enqSeq, e.Seq)
	}
	told, reason, ok := answeredState(e.Text)
	if ok && told != j.state.String() {
		s.disagree(e.Job, fmt.Sprintf("status of %v answered %s, the history says %v", e.Job, told, j.state), j.lastSeq, e.Seq)
	}
	if want := j.sh.lastCode; ok && reason != codeName(want) {
		s.disagree(e.Job, fmt.Sprintf("status of %v answered reason %q, the history's last failure reason is %q", e.Job, reason, codeName(want)), j.lastSeq, e.Seq)
	}
}

// codeName is a reason as a status answer prints it: none for CodeNone.
func codeName(c model.Code) string {
	if c == model.CodeNone {
		return ""
	}
	return c.String()
}

// answeredState reads the state and reason a status answer told its
// client, from the client's record "state=X [reason=Y]".
func answeredState(text string) (state, reason string, ok bool) {
	st, ok := strings.CutPrefix(text, "state=")
	st, rest, _ := strings.Cut(st, " ")
	reason, _ = strings.CutPrefix(rest, "reason=")
	return st, reason, ok
}

// acceptTenant checks that the API returned a job id to the job's owner.
func (s *Suite) acceptTenant(e *model.Event, j *job) {
	if j.enqueued && e.Tenant != "" && e.Tenant != j.tenant {
		s.report(TenantIsolation, e.Job, fmt.Sprintf("%v (tenant %s) returned to a client of tenant %s",
			e.Job, j.tenant, e.Tenant), j.enqSeq, e.Seq)
	}
}

// checkKeyShape checks an enqueued job's key: ARCHITECTURE.md's
// tenant:document:vN, built from a valid tenant id and the job's version
// (no code path may build a key without the tenant). The oracle parses the
// key itself rather than asking the model's key builder.
func (s *Suite) checkKeyShape(e *model.Event) {
	if !e.OK || e.Key == "" {
		return
	}
	if keyShaped(e.Key, e.Tenant, e.N2) && validTenant(e.Tenant) {
		return
	}
	s.report(TenantIsolation, e.Job, fmt.Sprintf("%v enqueued under key %s, which is not tenant:document:v%d of a valid tenant %q",
		e.Job, e.Key, e.N2, e.Tenant), e.Seq)
}

// keyShaped reports whether key is tenant:document:vN with a document and
// N = version, without building the expected key.
func keyShaped(key, tenant string, version int64) bool {
	rest, ok := strings.CutPrefix(key, tenant)
	if !ok {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, ":"); !ok {
		return false
	}
	var digits [20]byte
	v := strconv.AppendInt(digits[:0], version, 10)
	n := len(rest) - len(v)
	if n < 0 || rest[n:] != string(v) { // compared, not converted: no copy
		return false
	}
	doc, ok := strings.CutSuffix(rest[:n], ":v")
	return ok && doc != ""
}

// validTenant matches ^[a-z][a-z0-9-]{1,32}$ (seed 000's assertTenantId).
func validTenant(t string) bool {
	if len(t) < 2 || len(t) > 33 || t[0] < 'a' || t[0] > 'z' {
		return false
	}
	for i := 1; i < len(t); i++ {
		if c := t[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
