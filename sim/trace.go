package sim

import (
	"strconv"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// recorder is the run's model.Recorder: it numbers every event, hashes its
// trace line as it is produced, keeps the text only when asked, feeds the
// invariant suite and the metrics.
type recorder struct {
	seq     uint64
	hash    uint64
	line    []byte
	keep    bool
	trace   []string
	history []model.Event // kept with the trace, for counterexamples
	suite   *invariants.Suite
	metrics *metricsRecorder
	scratch model.Event // the simulator's own events, reused
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func newRecorder(keep bool, suite *invariants.Suite, m *metricsRecorder) *recorder {
	return &recorder{hash: fnvOffset, keep: keep, suite: suite, metrics: m, line: make([]byte, 0, 256)}
}

// Record implements model.Recorder.
func (r *recorder) Record(e *model.Event) {
	r.seq++
	e.Seq = r.seq
	r.line = appendLine(r.line[:0], e)
	h := r.hash
	for _, c := range r.line {
		h = (h ^ uint64(c)) * fnvPrime
	}
	r.hash = (h ^ '\n') * fnvPrime
	if r.keep {
		r.trace = append(r.trace, string(r.line))
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
