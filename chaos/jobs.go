package chaos

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// Traits are a job's behaviour, spelled in its document name so that every
// process, restarted or not, agrees on it without asking anyone.
type Traits struct {
	// Poison (".poison") fails permanently at extract: the DLQ, never
	// retried. Only version 1 is poison: the operator's reprocess (version
	// 2) stands for the fixed document.
	Poison bool
	// Flaky (".flakyN") fails transiently at validate on its first N
	// attempts (Retry with backoff), until it has been redriven: a redrive
	// follows the fix of the dependency.
	Flaky int32
	Slow  bool // ".slow": every stage's work takes Config.SlowWork (heartbeats without a freeze)
	Few   bool // ".few": FewAttempts attempts instead of Config.MaxAttempts
	Short bool // ".short": a deadline ShortDeadline leases after the enqueue
	Late  bool // ".late": a deadline 1 ms after the enqueue (cancelled at lease)
}

// ShortDeadline is the deadline of ".short" jobs, in leases: a
// ".short.flaky9" job is retried with a growing backoff until a retry
// would end past it (cancelled at retry) or its deadline passes while it
// waits (cancelled at lease).
const ShortDeadline = 8

// FewAttempts is the attempt ceiling of ".few" jobs: a ".few.flaky9" job
// is dead-lettered for max attempts at its fourth lease.
const FewAttempts = 3

// MixTraits is the orchestrator's job mix: the ith job's traits.
func MixTraits(i int) Traits {
	var t Traits
	switch {
	case i%10 == 3:
		t.Poison = true
	case i%7 == 5:
		t.Flaky = int32(1 + i%2)
	case i%11 == 4:
		t.Flaky, t.Few = 9, true // dead for max attempts, redriven, then succeeds
	case i%13 == 6:
		t.Flaky, t.Short = 9, true // retried until a retry would pass the deadline
	case i%13 == 9:
		t.Late = true
	}
	t.Slow = i%19 == 2
	t.Few = t.Few || i%23 == 1
	return t
}

// DocName is the document of the ith job with traits t.
func DocName(i int, t Traits) string {
	var b strings.Builder
	b.WriteString("d")
	s := strconv.Itoa(i)
	for range 6 - len(s) {
		b.WriteByte('0')
	}
	b.WriteString(s)
	if t.Poison {
		b.WriteString(".poison")
	}
	if t.Flaky > 0 {
		b.WriteString(".flaky" + strconv.Itoa(int(t.Flaky)))
	}
	for _, m := range []struct {
		on   bool
		mark string
	}{{t.Slow, ".slow"}, {t.Few, ".few"}, {t.Short, ".short"}, {t.Late, ".late"}} {
		if m.on {
			b.WriteString(m.mark)
		}
	}
	return b.String()
}

// DocTraits reads the traits back from a document name.
func DocTraits(doc string) Traits {
	var t Traits
	for _, m := range strings.Split(doc, ".")[1:] {
		switch {
		case m == "poison":
			t.Poison = true
		case strings.HasPrefix(m, "flaky"):
			if n, err := strconv.Atoi(m[len("flaky"):]); err == nil && n >= 0 && n <= 99 {
				t.Flaky = int32(n)
			}
		case m == "slow":
			t.Slow = true
		case m == "few":
			t.Few = true
		case m == "short":
			t.Short = true
		case m == "late":
			t.Late = true
		}
	}
	return t
}

// ParseKey splits a key built by model.BuildIdempotencyKey
// (tenant:document:vN).
func ParseKey(key string) (tenant, doc string, version int, ok bool) {
	parts := strings.Split(key, ":")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "v") {
		return "", "", 0, false
	}
	v, err := strconv.Atoi(parts[2][1:])
	if err != nil || v < 1 {
		return "", "", 0, false
	}
	return parts[0], parts[1], v, true
}

// KeyTraits are the traits of the job under key: its document's, with
// Poison only at version 1.
func KeyTraits(key string) Traits {
	_, doc, v, ok := ParseKey(key)
	if !ok {
		return Traits{}
	}
	t := DocTraits(doc)
	t.Poison = t.Poison && v == 1
	return t
}

// IsPoison reports whether the key's job fails permanently.
func IsPoison(key string) bool { return KeyTraits(key).Poison }

// PayloadOf is the payload hash of a document, the same for each of its
// versions; an enqueue under an existing key with another hash must be
// refused as a conflict.
func PayloadOf(doc string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(doc))
	return h.Sum64()
}

// StageValue is the result of a stage of a key. A worker commits it
// mixed with its lease's fence, so each attempt brings a value of its own
// (as an LLM's answer differs per call): a re-leased job's commit of a
// stage already committed is deduplicated, and must hand back the stored
// value, not the caller's (the store checks compare the two).
func StageValue(key string, s model.Stage) uint64 {
	h := fnv.New64a()
	h.Write([]byte(model.StageKey(key, s)))
	return h.Sum64()
}
