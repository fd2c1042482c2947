package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// A target run (targetsim) is one more source of lanes and marks: its
// ops — each call of the seam an actor made, with what the queue
// answered — become events of the same data the model's history makes,
// drawn by the same script. What differs is said here: the lanes (the
// client, each worker incarnation, the rescuer, the scheduler, the
// operator), each op's mark, an attempt's bar from its fetch to the
// report (or crash) that lets it go, dotted past the policy's
// RescueAfter, and the plan's faults noted on the ops that show them.

// Lane roles of a target run, top to bottom.
var targetRoles = []string{"client", "w", "rescuer", "scheduler", "operator", "sim"}

// traceWhole says that each event's text is its whole trace line (a
// target's trace line has its time in seconds and no event number).
const traceWhole = "whole"

// buildTarget turns a target run kept with its trace into the script's
// data.
func buildTarget(res *targetsim.Result, invariant string) (*data, error) {
	if len(res.Ops) == 0 || len(res.Trace) != len(res.Ops) {
		return nil, fmt.Errorf("seed %d: the target run has no ops (run it with Config.KeepTrace)", res.Seed)
	}
	b := &targetBuilder{res: res, d: newData(opKindNames()), lanes: map[string]int{}, held: map[string]int{}, tx: map[int]int{}}
	b.strTable = newStrTable(b.d)
	b.d.Clock, b.d.Legend = traceWhole, targetLegend
	b.d.End = micros64(max(res.End, res.Ops[len(res.Ops)-1].T))
	b.makeLanes()
	for i := range res.Ops {
		if err := b.op(i); err != nil {
			return nil, err
		}
	}
	b.closeBars()
	b.notes()
	b.d.addViolations(res.Violations, len(res.Ops), b.path, invariant)
	b.d.noNulls()
	return b.d, nil
}

func micros64(t target.Time) int64 { return t / 1000 }

func opKindNames() []string {
	var out []string
	for k := target.OpNone; k.String() != "op?"; k++ {
		out = append(out, k.String())
	}
	return out
}

// targetLegend is the marks a target page explains, in order.
var targetLegend = []string{"lease", "apply", "skip", "commit", "ack", "retry", "dead", "cancel", "reject", "fail", "delay",
	"expired", "deadline", "operator", "crash", "pause", "fault", "named"}

type targetBuilder struct {
	res *targetsim.Result
	d   *data
	strTable
	lanes map[string]int // actor → lane
	held  map[string]int // actor → its open attempt bar
	tx    map[int]int    // transaction → its last op, for links
	stuck map[target.JobID]int
}

// roleOfActor is an actor's row group: workers by their w prefix.
func roleOfActor(actor string) string {
	if strings.HasPrefix(actor, "w") && len(actor) > 1 && actor[1] >= '0' && actor[1] <= '9' {
		return "w"
	}
	return actor
}

// makeLanes lists the lanes by role, workers by number and incarnation
// (w0, w0.1, w1, … as the model's pages order them), every other actor
// once.
func (b *targetBuilder) makeLanes() {
	names := []string{}
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	add("client")
	for _, in := range b.res.Incarnations {
		add(in.Name)
	}
	for i := range b.res.Ops {
		add(b.res.Ops[i].Actor)
	}
	slices.SortStableFunc(names, func(x, y string) int {
		ix, iy := workerOrder(x), workerOrder(y)
		return cmp.Or(cmp.Compare(indexOf(targetRoles, roleOfActor(x)), indexOf(targetRoles, roleOfActor(y))),
			cmp.Compare(ix[0], iy[0]), cmp.Compare(ix[1], iy[1]))
	})
	for i, name := range names {
		b.lanes[name] = i
		b.d.Lanes = append(b.d.Lanes, lane{Name: name, Role: roleOfActor(name), From: 0, To: b.d.End})
	}
	for _, in := range b.res.Incarnations {
		l := &b.d.Lanes[b.lanes[in.Name]]
		l.From, l.To, l.Crashed = micros64(in.From), micros64(in.To), in.Crashed
	}
}

// workerOrder is a worker's number and incarnation ("w2.1": 2, 1); 0, 0
// for any other actor.
func workerOrder(actor string) [2]int {
	if roleOfActor(actor) != "w" {
		return [2]int{}
	}
	id, in, _ := strings.Cut(actor[1:], ".")
	a, _ := strconv.Atoi(id)
	b, _ := strconv.Atoi(in)
	return [2]int{a, b}
}

// op adds op i: its mark, and the bar, span or link it opens or closes.
func (b *targetBuilder) op(i int) error {
	o := &b.res.Ops[i]
	if o.Seq != uint64(i+1) {
		return fmt.Errorf("op %d has number #%d: the history is not whole", i, o.Seq)
	}
	flags := int64(0)
	if o.Err == "" {
		flags |= flagOK
	}
	b.d.Ev = append(b.d.Ev, micros64(o.T), int64(b.lanes[o.Actor]), int64(o.Kind), int64(o.Job), int64(o.Args.Source),
		b.str(o.Args.Tenant), b.str(o.Key), int64(o.Tx), flags, int64(opGlyph(o)))
	b.d.Text = append(b.d.Text, b.res.Trace[i])
	b.attempts(i, o)
	b.spansOf(i, o)
	b.links(i, o)
	return nil
}

// opGlyph is the shape of an op's mark: what the call was and how the
// queue answered.
func opGlyph(o *target.Op) glyph {
	switch o.Kind {
	case target.OpInsert:
		if o.Skipped {
			return gSkip
		}
		return gRequest
	case target.OpFetch:
		return gLease
	case target.OpWork:
		return outcomeGlyph[o.Outcome]
	case target.OpEffect:
		if o.Applied {
			return gApply
		}
		return gSkip
	case target.OpComplete:
		if o.Err != "" || o.State != target.Completed {
			return gReject
		}
		return gAck
	case target.OpCommit:
		return gCommit
	case target.OpRollback:
		return gReject
	case target.OpReport:
		// A report the queue left is refused, unless the job is where
		// the report wanted it: completed by its own transaction.
		if !o.Applied && (o.Outcome != target.Done || o.State != target.Completed) {
			return gReject
		}
		return stateGlyph[o.State]
	case target.OpStuck:
		return gExpired
	case target.OpRescue, target.OpRetry:
		if o.Err != "" {
			return gReject
		}
		return gOperator
	case target.OpCrash:
		return gCrash
	case target.OpPause:
		return gPause
	case target.OpQuiesce:
		return gPhase
	case target.OpTimeout:
		return gDeadline
	}
	return gDot
}

// outcomeGlyph is the mark of a handler's work by how it ended.
var outcomeGlyph = map[target.Outcome]glyph{target.Done: gDot, target.Errored: gFail, target.Cancel: gCancel, target.Snooze: gDelay}

// stateGlyph is the mark of a report by the state the queue left the job
// in.
var stateGlyph = map[target.State]glyph{target.Completed: gAck, target.Retryable: gRetry, target.Scheduled: gDelay,
	target.Available: gRetry, target.Discarded: gDead, target.Cancelled: gCancel}

// attempts opens a bar at each fetch, on the worker's lane, and closes it
// where the worker lets the job go: its report, or its crash.
func (b *targetBuilder) attempts(i int, o *target.Op) {
	switch o.Kind {
	case target.OpFetch:
		if k, ok := b.held[o.Actor]; ok {
			b.closeBar(o.Actor, k, micros64(o.T), gExpired)
		}
		valid := micros64(o.T + b.res.Policy.RescueAfter)
		if b.res.Policy.RescueAfter == 0 {
			valid = b.d.End
		}
		b.held[o.Actor] = len(b.d.Bars)
		b.d.Bars = append(b.d.Bars, int64(b.lanes[o.Actor]), int64(o.Job), -1, int64(o.Attempt), micros64(o.T), valid, -1, -1, int64(i))
	case target.OpReport, target.OpCrash:
		if k, ok := b.held[o.Actor]; ok {
			b.closeBar(o.Actor, k, micros64(o.T), opGlyph(o))
		}
	}
}

func (b *targetBuilder) closeBar(actor string, k int, at int64, end glyph) {
	b.d.Bars[k+6], b.d.Bars[k+7] = at, int64(end)
	delete(b.held, actor)
}

// closeBars ends the attempts still held when the run ended.
func (b *targetBuilder) closeBars() {
	for k := 0; k < len(b.d.Bars); k += barStride {
		if b.d.Bars[k+6] < 0 {
			b.d.Bars[k+6] = b.d.End
		}
	}
}

// spansOf draws a pause as a span on its actor's lane and the end of the
// faults as a vertical line.
func (b *targetBuilder) spansOf(i int, o *target.Op) {
	switch o.Kind {
	case target.OpPause:
		b.d.Spans = append(b.d.Spans, spanPause, int64(b.lanes[o.Actor]), micros64(o.T), micros64(o.At), int64(i))
	case target.OpQuiesce:
		b.d.Lines = append(b.d.Lines, linePhase, micros64(o.T), 0, int64(i))
		b.d.LineLabels = append(b.d.LineLabels, "quiesce")
	}
}

// links joins the ops of one handler transaction (effect or outbox
// insert → completion → commit or rollback) and the rescuer's reading of
// a job as stuck to its rescue.
func (b *targetBuilder) links(i int, o *target.Op) {
	if b.stuck == nil {
		b.stuck = map[target.JobID]int{}
	}
	if o.Tx != 0 {
		if from, ok := b.tx[o.Tx]; ok {
			b.d.Links = append(b.d.Links, int32(from), int32(i))
		}
		b.tx[o.Tx] = i
	}
	switch o.Kind {
	case target.OpStuck:
		b.stuck[o.Job] = i
	case target.OpRescue:
		if from, ok := b.stuck[o.Job]; ok {
			b.d.Links = append(b.d.Links, int32(from), int32(i))
			delete(b.stuck, o.Job)
		}
	}
}

// notes lists the plan's faults on the ops that show them.
func (b *targetBuilder) notes() {
	for _, s := range b.res.Strikes {
		if s.Op >= 1 && s.Op <= uint64(len(b.res.Ops)) {
			b.d.NoteAt = append(b.d.NoteAt, int32(s.Op-1))
			b.d.Notes = append(b.d.Notes, s.Fault.String())
		}
	}
}

// path is the ops of a violation's jobs (the jobs it is about and those
// of the ops it names) and the ops it names, up to the last of them: the
// target's critical path, as sim.TimelineIndices is the model's.
func (b *targetBuilder) path(inv string) []int {
	jobs, named := map[target.JobID]bool{}, map[uint64]bool{}
	var last uint64
	for _, v := range b.res.Violations {
		if v.Invariant != inv {
			continue
		}
		if v.Job != 0 {
			jobs[target.JobID(v.Job)] = true
		}
		for _, seq := range v.Events {
			named[seq] = true
			last = max(last, seq)
			if seq >= 1 && seq <= uint64(len(b.res.Ops)) && b.res.Ops[seq-1].Job != 0 {
				jobs[b.res.Ops[seq-1].Job] = true
			}
		}
	}
	var out []int
	for i := range b.res.Ops {
		o := &b.res.Ops[i]
		if last > 0 && o.Seq > last {
			break
		}
		if named[o.Seq] || o.Job != 0 && (jobs[o.Job] || jobs[o.Args.Source]) {
			out = append(out, i)
		}
	}
	return out
}
