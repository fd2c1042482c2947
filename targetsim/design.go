package targetsim

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/target"
)

// Design is a handler design: how a worker's handler writes its effect and
// completes its job. The correct ones promise one effect per document;
// the naive ones are the mistakes a team makes on top of an
// at-least-once queue.
type Design uint8

// The designs.
const (
	// TxChecked: the effect and the job's completion (JobCompleteTx) in
	// one transaction, committed only if the row the completion returned
	// is completed at this worker's own attempt; otherwise rolled back.
	TxChecked Design = iota
	// Outbox: the handler's transaction inserts an outbox job (InsertTx)
	// and completes the job (checked as TxChecked); a deduplicating
	// consumer works the outbox jobs, writing the effect under a ledger
	// key with the completion, in one transaction.
	Outbox
	// IdempotentKey: the effect written under a ledger key
	// tenant:document:vN (a duplicate writes nothing), committed; the job
	// completed by the completer afterwards (at-least-once plus an
	// idempotent effect).
	IdempotentKey
	// TxAsDocumented: the effect and JobCompleteTx in one transaction,
	// checking only the error JobCompleteTx returns, as its documentation
	// shows.
	TxAsDocumented
	// EffectOutsideTx (naive): the side effect happens before and outside
	// any transaction; the completer completes the job afterwards.
	EffectOutsideTx
	// CompleteOutsideTx (naive): the effect commits in its own
	// transaction; the completion is a second one.
	CompleteOutsideTx
	// KeyWithoutTenant (naive): IdempotentKey with a key document:vN that
	// leaves out the tenant.
	KeyWithoutTenant
	designCount
)

var designInfo = [designCount]struct {
	name, what string
	correct    bool
}{
	{"tx-checked", "effect and JobCompleteTx in one transaction, committed only if the job came back completed at the worker's own attempt", true},
	{"outbox", "the handler inserts an outbox job with InsertTx and completes with JobCompleteTx (checked); a deduplicating consumer applies it", true},
	{"idempotent-key", "effect under a ledger key tenant:document:vN, then the completer completes the job", true},
	{"tx-as-documented", "effect and JobCompleteTx in one transaction, checking only JobCompleteTx's error (its documentation's pattern)", false},
	{"effect-outside-tx", "side effect before any transaction, then the completer completes the job", false},
	{"complete-outside-tx", "effect committed in its own transaction, then the completer completes the job", false},
	{"key-without-tenant", "idempotent-key with a key document:vN, without the tenant", false},
}

func (d Design) String() string {
	if d >= designCount {
		return "design?"
	}
	return designInfo[d].name
}

// What is the design in one line.
func (d Design) What() string { return designInfo[d].what }

// Correct reports whether the design promises one effect per document.
func (d Design) Correct() bool { return designInfo[d].correct }

// CorrectOn reports whether the design promises one effect per document
// on a queue with policy pol. tx-checked keeps one effect per job, so it
// keeps one per document only where a unique insert keeps one live job
// per document (pol.UniqueStates): on a queue with no unique insert
// (goqite), a document sent again is a second job whose effect is a
// second one, and only a key of the handler's own (idempotent-key, or an
// outbox's deduplicating consumer) keeps one.
func (d Design) CorrectOn(pol target.Policy) bool {
	if d == TxChecked && len(pol.UniqueStates) == 0 {
		return false
	}
	return d.Correct()
}

// Designs lists every design, the correct ones first.
func Designs() []Design {
	out := make([]Design, designCount)
	for i := range out {
		out[i] = Design(i)
	}
	return out
}

// LookupDesign finds a design by name.
func LookupDesign(name string) (Design, error) {
	var names []string
	for _, d := range Designs() {
		if d.String() == name {
			return d, nil
		}
		names = append(names, d.String())
	}
	return 0, fmt.Errorf("unknown handler design %q (want one of %s)", name, strings.Join(names, ", "))
}

// The job kinds.
const (
	KindDoc     = "durasim_doc"     // a client's document: the handler's job
	KindDeliver = "durasim_deliver" // an outbox row: the consumer's job (Outbox)
)

// transactional: the effect commits only with the job's completion.
func (d Design) transactional() bool { return d == TxChecked || d == Outbox || d == TxAsDocumented }

// effectKinds are the kinds whose completion stands for a document's
// effect, as the oracle's exactly-once check counts them.
func (d Design) effectKinds() []string {
	if d == Outbox {
		return []string{KindDeliver}
	}
	return []string{KindDoc}
}
