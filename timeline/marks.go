package timeline

import "github.com/durasim/durasim/model"

// glyph is the shape of an event's mark. The script draws each by name.
type glyph uint8

const (
	gDot       glyph = iota // anything without a shape of its own
	gLease                  // a lease starts (its bar follows)
	gBeat                   // a heartbeat that extended the lease
	gReject                 // refused: stale fence, not leased, conflict...
	gCommit                 // outbox commit (the effect's write)
	gPublish                // relay (or dual write) published to the broker
	gDeliver                // broker delivered to the consumer
	gApply                  // consumer applied the effect
	gSkip                   // consumer skipped a duplicate delivery
	gAck                    // final ack
	gRetry                  // nack, retry later
	gDead                   // dead-lettered
	gCancel                 // cancelled
	gCrash                  // an incarnation ends
	gRestart                // a new incarnation starts
	gPause                  // a zombie's pause starts (its span follows)
	gResume                 // the zombie wakes up
	gDuplicate              // the broker will deliver a message twice
	gDelay                  // the broker holds a message back
	gReorder                // the broker lets the next message overtake
	gAmbiguous              // a commit whose answer was lost
	gDeadline               // a request asks for a short deadline
	gBreaker                // the breaker changes state
	gPhase                  // the simulation changes phase
	gFail                   // stage work failed
	gExpired                // a lease found expired
	gDLQ                    // dead-letter envelope written
	gOperator               // redrive, reprocess
	gRequest                // accept, enqueue, status
	glyphCount
)

var glyphNames = [glyphCount]string{"dot", "lease", "beat", "reject", "commit", "publish", "deliver", "apply", "skip",
	"ack", "retry", "dead", "cancel", "crash", "restart", "pause", "resume", "duplicate", "delay", "reorder",
	"ambiguous", "deadline", "breaker", "phase", "fail", "expired", "dlq", "operator", "request"}

// kindGlyphs is the shape of each kind when its event succeeded.
var kindGlyphs = map[model.EventKind]glyph{
	model.EvAccept: gRequest, model.EvStatus: gRequest, model.EvEnqueue: gRequest, model.EvLease: gLease,
	model.EvLeaseExpired: gExpired, model.EvCancelAtLease: gCancel, model.EvExhausted: gDead, model.EvHeartbeat: gBeat,
	model.EvAck: gAck, model.EvRetry: gRetry, model.EvDead: gDead, model.EvCancel: gCancel,
	model.EvCommit: gCommit, model.EvDBWrite: gCommit, model.EvPublish: gPublish, model.EvMarkPublished: gDot,
	model.EvDeliver: gDeliver, model.EvApply: gApply, model.EvDLQWrite: gDLQ, model.EvRedrive: gOperator,
	model.EvReprocess: gOperator, model.EvBreaker: gBreaker, model.EvWorkFail: gFail, model.EvCrash: gCrash,
	model.EvRestart: gRestart, model.EvPause: gPause, model.EvResume: gResume, model.EvPhase: gPhase,
}

// faultGlyphs is the shape of each EvFault by its text.
var faultGlyphs = map[string]glyph{
	"duplicate": gDuplicate, "delay": gDelay, "reorder": gReorder, "ambiguous-commit": gAmbiguous, "deadline": gDeadline,
}

// mayFail lists the kinds whose events say ok when they succeeded: one
// without ok was refused.
var mayFail = map[model.EventKind]bool{
	model.EvLease: true, model.EvHeartbeat: true, model.EvAdvance: true, model.EvAck: true, model.EvCommit: true,
	model.EvRedrive: true, model.EvReprocess: true, model.EvRetry: true, model.EvDead: true,
}

func glyphOf(e *model.Event) glyph {
	switch {
	case e.Kind == model.EvFault:
		return faultGlyphs[e.Text] // an unknown fault is a dot
	case e.Kind == model.EvApply && !e.OK:
		return gSkip
	case mayFail[e.Kind] && !e.OK:
		return gReject
	}
	return kindGlyphs[e.Kind]
}

// Span kinds: stretches of time drawn behind the marks.
const (
	spanPause    = iota // a paused (zombie) actor
	spanOpen            // the breaker open: no leases
	spanHalfOpen        // the breaker half-open: canaries only
	spanDelay           // a message the broker holds back
	spanBurst           // a provider 429 burst (every worker lane)
	spanCount
)

var spanNames = [spanCount]string{"pause", "open", "half-open", "delay", "429"}

// Vertical line kinds: instants that concern every lane.
const (
	lineDeadline = iota // the deadline a request asked for
	linePhase           // the faults stop (quiescence)
	lineCount
)

var lineNames = [lineCount]string{"deadline", "phase"}

// leases opens a job's bar at its lease, extends its validity at each
// heartbeat and closes it at the event that ends it.
func (b *builder) leases(i int, e *model.Event) {
	if b.open == nil {
		b.open = map[model.JobID]int{}
	}
	bar, open := b.open[e.Job]
	switch e.Kind {
	case model.EvLease:
		if !e.OK {
			return
		}
		if open {
			b.closeBar(bar, micros(e.At), gExpired)
		}
		b.open[e.Job] = len(b.d.Bars) / barStride
		b.d.Bars = append(b.d.Bars, int64(b.lanes[laneName(e)]), int64(e.Job), int64(e.Fence), int64(e.Attempt),
			micros(e.At), micros(e.At+model.Time(e.N)), -1, -1, int64(i))
	case model.EvHeartbeat:
		if open && e.OK && b.d.Bars[bar*barStride+2] == int64(e.Fence) {
			b.d.Bars[bar*barStride+5] = micros(e.At + model.Time(e.N))
		}
	case model.EvAck, model.EvRetry, model.EvDead, model.EvCancel, model.EvLeaseExpired, model.EvCancelAtLease, model.EvExhausted:
		if open && (e.Fence == 0 || b.d.Bars[bar*barStride+2] == int64(e.Fence)) && (e.OK || !mayFail[e.Kind]) {
			b.closeBar(bar, micros(e.At), glyphOf(e))
		}
	}
}

func (b *builder) closeBar(bar int, at int64, end glyph) {
	b.d.Bars[bar*barStride+6], b.d.Bars[bar*barStride+7] = at, int64(end)
	delete(b.open, model.JobID(b.d.Bars[bar*barStride+1]))
}

// closeBars ends the leases still held when the run ended.
func (b *builder) closeBars() {
	for k := 0; k < len(b.d.Bars); k += barStride {
		if b.d.Bars[k+6] < 0 {
			b.d.Bars[k+6] = b.d.End
		}
	}
	b.open = nil
}

// spans adds pauses, broker delays, breaker states and phase and
// deadline lines.
func (b *builder) spans(i int, e *model.Event) {
	if b.pause == nil {
		b.pause, b.brk = map[string]int{}, -1
	}
	at := micros(e.At)
	switch {
	case e.Kind == model.EvPause:
		b.pause[laneName(e)] = len(b.d.Spans)
		b.d.Spans = append(b.d.Spans, spanPause, int64(b.lanes[laneName(e)]), at, micros(e.At+model.Time(e.N)), int64(i))
	case e.Kind == model.EvResume:
		if k, ok := b.pause[laneName(e)]; ok {
			b.d.Spans[k+3] = at
			delete(b.pause, laneName(e))
		}
	case e.Kind == model.EvFault && e.Text == "delay":
		b.d.Spans = append(b.d.Spans, spanDelay, int64(b.lanes[laneName(e)]), at, micros(e.At+model.Time(e.N2)), int64(i))
	case e.Kind == model.EvFault && e.Text == "deadline":
		b.d.Lines = append(b.d.Lines, lineDeadline, micros(e.At+model.Time(e.N2)), int64(b.jobOfKey(i, e.Key)), int64(i))
		b.d.LineLabels = append(b.d.LineLabels, "deadline "+e.Key)
	case e.Kind == model.EvPhase:
		b.d.Lines = append(b.d.Lines, linePhase, at, 0, int64(i))
		b.d.LineLabels = append(b.d.LineLabels, e.Text)
	case e.Kind == model.EvBreaker:
		b.breaker(i, e)
	}
}

// breaker closes the span of the state the breaker leaves and opens the
// one it enters (closed draws nothing).
func (b *builder) breaker(i int, e *model.Event) {
	at := micros(e.At)
	if b.brk >= 0 {
		b.d.Spans[b.brk+3] = at
		b.brk = -1
	}
	kind := int64(-1)
	switch e.Text {
	case "state=open":
		kind = spanOpen
	case "state=half-open":
		kind = spanHalfOpen
	}
	if kind >= 0 {
		b.brk = len(b.d.Spans)
		b.d.Spans = append(b.d.Spans, kind, int64(b.lanes[laneName(e)]), at, b.d.End, int64(i))
	}
}

// jobOfKey is the job the next enqueue of key creates (a deadline fault
// is announced before its job exists); 0 when none does.
func (b *builder) jobOfKey(i int, key string) model.JobID {
	for k := i + 1; k < len(b.res.History); k++ {
		if e := &b.res.History[k]; e.Kind == model.EvEnqueue && e.Key == key && e.Job != 0 {
			return e.Job
		}
	}
	return 0
}

// link joins the marks of one effect's way: its commit to each publish of
// its event id, each publish to the deliveries and applies of its message,
// a delivery to its apply.
func (b *builder) link(i int, e *model.Event) {
	if b.state == nil {
		b.state, b.msgs, b.dels = map[model.EventID]int{}, map[int64]int{}, map[[2]int64]int{}
	}
	switch e.Kind {
	case model.EvCommit, model.EvDBWrite:
		if e.EventID != 0 && (e.OK || e.Kind == model.EvDBWrite) {
			b.state[e.EventID] = i
		}
	case model.EvPublish:
		if from, ok := b.state[e.EventID]; ok && e.EventID != 0 {
			b.d.Links = append(b.d.Links, int32(from), int32(i))
		}
		b.msgs[e.N] = i
	case model.EvDeliver:
		if from, ok := b.msgs[e.N2]; ok {
			b.d.Links = append(b.d.Links, int32(from), int32(i))
		}
		b.dels[[2]int64{e.N2, e.N}] = i
	case model.EvApply:
		if from, ok := b.dels[[2]int64{e.N2, e.N}]; ok {
			b.d.Links = append(b.d.Links, int32(from), int32(i))
		} else if from, ok := b.msgs[e.N2]; ok {
			b.d.Links = append(b.d.Links, int32(from), int32(i))
		}
	}
}
