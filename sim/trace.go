package sim

import (
	"math/bits"
	"strconv"
	"unsafe"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// TraceHasher numbers events, formats their trace lines and hashes them,
// exactly as Run does: another runner of the same model (the goroutine
// runners of `durasim bench`) gets comparable traces and hashes from it.
type TraceHasher struct {
	seq     uint64
	hash    uint64
	line    []byte
	strings stringHashes
}

// NewTraceHasher returns a hasher of an empty trace.
func NewTraceHasher() *TraceHasher {
	return &TraceHasher{hash: hashSeed, line: make([]byte, 0, 256)}
}

// Add numbers e (it sets e.Seq) and folds it into the hash.
func (t *TraceHasher) Add(e *model.Event) {
	t.seq++
	e.Seq = t.seq
	t.hash = hashEvent(t.hash, e, &t.strings)
}

// Line formats the event just added as its trace line; the line is valid
// until the next call. Only runs that keep their trace pay for it.
func (t *TraceHasher) Line(e *model.Event) []byte {
	t.line = appendLine(t.line[:0], e)
	return t.line
}

// Sum is the trace hash so far; Events how many events were added.
func (t *TraceHasher) Sum() uint64    { return t.hash }
func (t *TraceHasher) Events() uint64 { return t.seq }

// recorder is the run's model.Recorder: it numbers every event, hashes its
// trace line as it is produced, keeps the text only when asked, feeds the
// invariant suite and the metrics.
type recorder struct {
	TraceHasher
	keep    bool
	trace   []string
	history []model.Event // kept with the trace, for counterexamples
	suite   *invariants.Suite
	metrics *metricsRecorder
	pairs   pairTracker   // rare conjunctions the run reached (pairs.go)
	scratch model.Event   // the simulator's own events, reused
	backend *backendState // nil: the model alone (Config.Backend unset)
	kinds   [2]uint64     // Result.LineKinds
}

// hashSeed starts the trace hash (FNV-1a's offset basis).
const hashSeed = 14695981039346656037

// reset makes r a recorder of an empty trace, keeping its line buffer.
func (r *recorder) reset(keep bool, suite *invariants.Suite, m *metricsRecorder) {
	line := r.line[:0]
	if line == nil {
		line = make([]byte, 0, 256)
	}
	strs := r.strings // its strings' hashes hold in any run
	pairs := r.pairs
	pairs.reset()
	*r = recorder{TraceHasher: TraceHasher{hash: hashSeed, line: line, strings: strs}, keep: keep, suite: suite, metrics: m, pairs: pairs}
}

// hashEvent folds one event into the running hash: every field that its
// trace line shows, in a fixed order and encoding, so two traces hash alike
// exactly when their lines are alike — without formatting the line. Small
// fields are packed into words; each string is hashed on its own, and its
// hash folded in (strs remembers the strings seen last: a job's key and
// tenant ride on every event of the job). The fields go down two
// independent lanes joined at the end: each mix waits for the one before
// it in its lane only, so the CPU overlaps the two.
func hashEvent(h uint64, e *model.Event, strs *stringHashes) uint64 {
	a := mix(h, uint64(e.At))
	b := mix(h^lane2, uint64(e.Kind)|uint64(e.Actor.Role)<<8|uint64(e.Stage)<<16|uint64(e.Code)<<24|
		uint64(e.Boundary)<<32|flag(e.HasStage)<<40|flag(e.OK)<<41)
	a = mix(a, uint64(uint32(e.Actor.ID))|uint64(uint32(e.Actor.Incarnation))<<32)
	b = mix(b, uint64(e.Job))
	a = mix(a, uint64(e.Other))
	b = mix(b, e.Fence)
	a = mix(a, uint64(uint32(e.Attempt)))
	b = mix(b, uint64(e.EventID))
	a = mix(a, uint64(e.N))
	b = mix(b, uint64(e.N2))
	a = mix(a, uint64(uint32(e.Payload))) // what the line shows
	// (Most events carry an empty string or two, and the very strings
	// their slots hold: a test inline, and no call.)
	ht, hk, hx := emptyStringHash, emptyStringHash, emptyStringHash
	if e.Tenant != "" {
		if slot := strs.slot(e.Tenant); slot.holds(e.Tenant) {
			ht = slot.h
		} else {
			ht = slot.fill(e.Tenant)
		}
	}
	if e.Key != "" {
		if slot := strs.slot(e.Key); slot.holds(e.Key) {
			hk = slot.h
		} else {
			hk = slot.fill(e.Key)
		}
	}
	if e.Text != "" {
		if slot := strs.slot(e.Text); slot.holds(e.Text) {
			hx = slot.h
		} else {
			hx = slot.fill(e.Text)
		}
	}
	a = mix(a, ht)
	b = mix(b, hk)
	a = mix(a, hx)
	return mix(a, b)
}

// stringHashes remembers the hashes of the strings hashed last, in slots
// picked by where a string's bytes lie: an event's key or tenant is most
// often the very string the job's earlier events carried. A slot is
// trusted only when it holds an equal string (the comparison is a pointer
// check when it is the same one), so what it returns is always the hash of
// the bytes: where strings lie decides only how often hashing is skipped.
// A slot keeps its string alive, so its address cannot be reused meanwhile.
type stringHashes struct {
	slots [64]stringHash
}

type stringHash struct {
	s string
	h uint64
}

// slot is where s's hash is kept, by where its bytes lie: the slot
// holds s itself (its hash), or fill makes it s's, returning
// hashString(stringSeed, s) (s not empty).
func (c *stringHashes) slot(s string) *stringHash {
	return &c.slots[(uintptr(unsafe.Pointer(unsafe.StringData(s)))>>4^uintptr(len(s)))%uintptr(len(c.slots))]
}

// holds says whether the slot holds s itself (not merely equal bytes).
func (slot *stringHash) holds(s string) bool {
	return unsafe.StringData(slot.s) == unsafe.StringData(s) && len(slot.s) == len(s)
}

// fill makes the slot s's, hashing s unless the slot holds its bytes.
// (Out of line: the common case, holds, inlines into hashEvent.)
//
//go:noinline
func (slot *stringHash) fill(s string) uint64 {
	if slot.s != s {
		slot.h = hashString(stringSeed, s)
	}
	slot.s = s
	return slot.h
}

// stringSeed starts each string's hash.
const stringSeed = 0xbb67ae8584caa73b

// emptyStringHash is the empty string's (most events carry one or two).
var emptyStringHash = hashString(stringSeed, "")

// lane2 starts the second lane of hashEvent away from the first.
const lane2 = 0x6a09e667f3bcc909

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// mix folds one word into the hash.
func mix(h, w uint64) uint64 { return bits.RotateLeft64(h^w, 27) * 0x9e3779b97f4a7c15 }

// hashString folds a string, word by word, then its length.
func hashString(h uint64, s string) uint64 {
	for len(s) >= 8 {
		h = mix(h, uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56)
		s = s[8:]
	}
	return mix(mix(h, tailWord(s)), uint64(len(s)))
}

// tailWord packs the last 0-7 bytes of a string little-endian into a word:
// with four or more, as two overlapping 4-byte loads (the bytes they share
// are or-ed in twice, to the same place).
func tailWord(s string) uint64 {
	n := len(s)
	if n < 4 {
		var w uint64
		for i := 0; i < n; i++ {
			w |= uint64(s[i]) << (8 * i)
		}
		return w
	}
	lo := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
	hi := uint64(s[n-4]) | uint64(s[n-3])<<8 | uint64(s[n-2])<<16 | uint64(s[n-1])<<24
	return lo | hi<<(8*(n-4))
}

// Record implements model.Recorder.
func (r *recorder) Record(e *model.Event) {
	r.Add(e)
	r.kinds[b2i(e.OK)] |= e.Kind.Bit()
	if r.keep {
		r.keepEvent(e)
	}
	r.suite.Record(e)
	r.metrics.observe(e)
	r.pairs.observe(e)
	if r.backend != nil {
		r.backend.observe(e)
	}
}

// keepEvent keeps e's trace line and a copy of e (out of line: most runs
// keep neither).
func (r *recorder) keepEvent(e *model.Event) {
	r.trace = append(r.trace, string(r.Line(e)))
	r.history = append(r.history, *e)
}

// appendLine is the stable trace form: "t=12.5ms #7 lease w1 j3 ...".
func appendLine(b []byte, e *model.Event) []byte {
	b = append(b, "t="...)
	b = scheduler.AppendMillis(b, e.At)
	b = append(b, "ms"...)
	b = append(b, " #"...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, ' ')
	return e.AppendText(b)
}
