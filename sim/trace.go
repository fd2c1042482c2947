package sim

import (
	"encoding/binary"
	"math/bits"
	"strconv"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// TraceHasher numbers events, formats their trace lines and hashes them,
// exactly as Run does: another runner of the same model (the goroutine
// runners of `durasim bench`) gets comparable traces and hashes from it.
type TraceHasher struct {
	seq  uint64
	hash uint64
	line []byte
}

// NewTraceHasher returns a hasher of an empty trace.
func NewTraceHasher() *TraceHasher {
	return &TraceHasher{hash: hashSeed, line: make([]byte, 0, 256)}
}

// Add numbers e (it sets e.Seq), formats its line and folds it into the
// hash. The line is valid until the next Add.
func (t *TraceHasher) Add(e *model.Event) []byte {
	t.seq++
	e.Seq = t.seq
	t.line = appendLine(t.line[:0], e)
	t.hash = hashLine(t.hash, t.line)
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
	scratch model.Event // the simulator's own events, reused
}

// hashSeed starts the trace hash (FNV-1a's offset basis).
const hashSeed = 14695981039346656037

func newRecorder(keep bool, suite *invariants.Suite, m *metricsRecorder) *recorder {
	return &recorder{TraceHasher: *NewTraceHasher(), keep: keep, suite: suite, metrics: m}
}

// hashLine folds one trace line into the running hash: the line's bytes as
// little-endian 64-bit words (the last one zero-padded), then its length,
// each mixed by a rotation and a multiplication by 2^64/φ. Eight bytes per
// step instead of one; the same value on every architecture.
func hashLine(h uint64, line []byte) uint64 {
	const mul = 0x9e3779b97f4a7c15
	b := line
	for len(b) >= 8 {
		h = bits.RotateLeft64(h^binary.LittleEndian.Uint64(b), 27) * mul
		b = b[8:]
	}
	var tail uint64
	for i, c := range b {
		tail |= uint64(c) << (8 * i)
	}
	h = bits.RotateLeft64(h^tail, 27) * mul
	return bits.RotateLeft64(h^uint64(len(line)), 31) * mul
}

// Record implements model.Recorder.
func (r *recorder) Record(e *model.Event) {
	line := r.Add(e)
	if r.keep {
		r.trace = append(r.trace, string(line))
		r.history = append(r.history, *e)
	}
	r.suite.Record(e)
	r.metrics.observe(e)
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

// TraceLine formats one event as it appears in a trace.
func TraceLine(e *model.Event) string { return string(appendLine(nil, e)) }
