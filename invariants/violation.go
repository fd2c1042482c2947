package invariants

import (
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// Names of the invariants: stable strings used in reports and CLI output.
const (
	ExactlyOnce     = "exactly-once-effect"
	TenantIsolation = "tenant-isolation"
	BoundedRetries  = "bounded-retries"
	Fencing         = "fencing"
	NothingLost     = "nothing-lost"
	DLQHygiene      = "dlq-hygiene"
	OperatorActions = "reprocess-redrive" // audited, versioned, rate-limited; cancelled is terminal
	WastedWork      = "wasted-work"       // no two workers pay for the same job's work at once
	Breaker         = "circuit-breaker"   // opens, probes and closes as seed 003 says; no lease while open
	Consistency     = "consistency"       // what the system reports and stores agrees with the history
	Workflow        = "durable-workflow"  // each activity's effect once; a replay issues none (workflow.go)
	Liveness        = "liveness"          // after the faults stop, the system drains
)

// Names lists every invariant in the order [Suite.Finish] reports final
// checks.
func Names() []string {
	return []string{ExactlyOnce, TenantIsolation, BoundedRetries, Fencing, NothingLost, DLQHygiene, OperatorActions, WastedWork,
		Breaker, Consistency, Workflow, Liveness}
}

// Violation is one broken invariant. Message names what went wrong by ids
// (jobs, events, keys, fences), never by document text.
type Violation struct {
	Invariant string
	Job       model.JobID // 0 if not about one job
	Message   string
	Events    []uint64 // Seq numbers of the history events that prove it, ascending
}

// String is "exactly-once-effect: j3 stage=review applied twice (events #41, #88)".
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.Invariant)
	b.WriteString(": ")
	b.WriteString(v.Message)
	if len(v.Events) == 0 {
		return b.String()
	}
	b.WriteString(" (event")
	if len(v.Events) > 1 {
		b.WriteByte('s')
	}
	for i, seq := range v.Events {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" #")
		b.WriteString(strconv.FormatUint(seq, 10))
	}
	b.WriteByte(')')
	return b.String()
}

// Config is what the checkers need to know about the run. A zero field of
// Model disables the checks that depend on it (a zero MaxAttempts, retry
// Base or bucket Capacity means "unknown", not "zero allowed").
type Config struct {
	Model model.Config // lease, maxAttempts, retry policy, redrive and reprocess buckets
	// Secrets are the workload's document texts and raw error messages: none
	// may appear in the DLQ, the audit log or the text of any event.
	Secrets []string
	// SecretSource, when set, replaces Secrets: a large workload builds
	// each text when asked instead of holding them all (the index keeps
	// only a 12-byte window per secret).
	SecretSource SecretSource
	// Clients is how many clients the workload has (one per document,
	// actors client1..clientN): in a drained run each must have been told
	// a job id, whatever the queue refused on the way. Zero: unknown.
	Clients int32
}

// SecretSource numbers the workload's secrets and builds each on demand:
// AppendSecret appends secret i to dst, the same bytes every time.
type SecretSource interface {
	Len() int
	AppendSecret(dst []byte, i int) []byte
}

// secretList is a SecretSource over texts held in memory.
type secretList []string

func (l secretList) Len() int                              { return len(l) }
func (l secretList) AppendSecret(dst []byte, i int) []byte { return append(dst, l[i]...) }

// violations collects violations in the order they are found.
type violations []Violation

// add appends a violation proved by the events seqs (zeros are unknown
// events and are dropped).
func (vs *violations) add(inv string, job model.JobID, msg string, seqs ...uint64) {
	ev := slices.DeleteFunc(slices.Clone(seqs), func(s uint64) bool { return s == 0 })
	slices.Sort(ev)
	*vs = append(*vs, Violation{Invariant: inv, Job: job, Message: msg, Events: slices.Compact(ev)})
}

// millis prints a model time or span in milliseconds, as traces do.
func millis(t model.Time) string {
	s := strconv.FormatInt(t/model.Millisecond, 10)
	if us := t % model.Millisecond / 1000; us != 0 {
		f := strings.TrimRight(strconv.FormatInt(1000+abs(us), 10)[1:], "0")
		if t < 0 && t > -model.Millisecond {
			s = "-" + s
		}
		s += "." + f
	}
	return s + "ms"
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
