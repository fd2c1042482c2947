package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// data is what the script draws, encoded as JSON inside the page. Numbers
// go in flat arrays of fixed stride (an object per event would triple the
// size of a 100,000-event page); times are microseconds, as trace lines
// show them.
type data struct {
	Lanes      []lane      `json:"lanes"`
	Kinds      []string    `json:"kinds"`  // event kind names, by model.EventKind
	Glyphs     []string    `json:"glyphs"` // mark shapes, by glyph
	Strs       []string    `json:"strs"`   // tenants and keys; 0 is ""
	Ev         []int64     `json:"ev"`     // evStride numbers per event
	Text       []string    `json:"text"`   // each event's trace line after "t=…ms #n "
	Bars       []int64     `json:"bars"`   // barStride numbers per lease
	Spans      []int64     `json:"spans"`  // spanStride numbers per span
	SpanKinds  []string    `json:"spanKinds"`
	Lines      []int64     `json:"lines"` // lineStride numbers per vertical line
	LineKinds  []string    `json:"lineKinds"`
	LineLabels []string    `json:"lineLabels"` // one per vertical line
	Links      []int32     `json:"links"`      // pairs of event indices
	Violations []violation `json:"violations"`
	Involved   [][]int32   `json:"involved"` // per violation group: sim's critical path
	Selected   int         `json:"selected"` // the violation shown first (-1: none)
	End        int64       `json:"end"`      // the run's end
	// A target run's: each text is its whole trace line (traceWhole),
	// the marks its legend explains, and the plan's faults noted on the
	// events that show them (NoteAt[k] is the event of Notes[k]).
	Clock  string   `json:"clock,omitempty"`
	Legend []string `json:"legend,omitempty"`
	NoteAt []int32  `json:"noteAt,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

// lane is one row: an actor (a worker incarnation, the relay...) or a
// group of them (every client).
type lane struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	From    int64  `json:"from"`    // when the incarnation started
	To      int64  `json:"to"`      // when it crashed, or the run's end
	Crashed bool   `json:"crashed"` // it ended with a crash
}

type violation struct {
	Invariant string  `json:"invariant"`
	Text      string  `json:"text"`            // Violation.String()
	Local     string  `json:"local,omitempty"` // the same in the page's language, when it is not English
	Job       int64   `json:"job"`
	Events    []int32 `json:"events"` // indices of the events it names
	Group     int     `json:"group"`  // index in data.Involved
}

// Strides of the flat arrays, and the meaning of each position.
const (
	// ev: at, lane, kind, job, other, tenant, key, event id, flags, glyph
	evStride = 10
	// bars: lane, job, fence, attempt, from, valid until, to, end glyph, lease event
	barStride = 9
	// spans: kind, lane (-1: every worker lane), from, to, event (-1: none)
	spanStride = 5
	// lines: kind, at, job, event (-1: none)
	lineStride = 4
)

// Event flags.
const (
	flagOK = 1 << iota
)

func micros(t model.Time) int64 { return int64(t) / 1000 }

// build turns a run kept with its trace into the script's data.
func build(res *sim.Result, invariant string) (*data, error) {
	if len(res.History) == 0 {
		return nil, fmt.Errorf("seed %d: the run has no history (run it with Config.KeepTrace)", res.Seed)
	}
	b := &builder{res: res, d: newData(kindNames()), lanes: map[string]int{}}
	b.strTable = newStrTable(b.d)
	b.d.End = micros(max(res.End, res.History[len(res.History)-1].At))
	b.makeLanes()
	for i := range res.History {
		if err := b.event(i); err != nil {
			return nil, err
		}
	}
	b.closeBars()
	b.rateLimits()
	b.violations(invariant)
	b.d.noNulls()
	return b.d, nil
}

// newData is empty data whose events are of the kinds named.
func newData(kinds []string) *data {
	return &data{Kinds: kinds, Glyphs: glyphNames[:], SpanKinds: spanNames[:], LineKinds: lineNames[:], Strs: []string{""}, Selected: -1}
}

// noNulls makes every empty list an empty array: the script reads their
// lengths, and JSON writes a nil slice as null.
func (d *data) noNulls() {
	for _, s := range []*[]int64{&d.Bars, &d.Spans, &d.Lines} {
		if *s == nil {
			*s = []int64{}
		}
	}
	if d.LineLabels == nil {
		d.LineLabels = []string{}
	}
	if d.Links == nil {
		d.Links = []int32{}
	}
	if d.Violations == nil {
		d.Violations = []violation{}
	}
	if d.Involved == nil {
		d.Involved = [][]int32{}
	}
	for i := range d.Involved {
		if d.Involved[i] == nil {
			d.Involved[i] = []int32{}
		}
	}
	for i := range d.Violations {
		if d.Violations[i].Events == nil {
			d.Violations[i].Events = []int32{}
		}
	}
}

func kindNames() []string {
	var out []string
	for k := model.EvNone; ; k++ {
		name := k.String()
		if strings.HasPrefix(name, "kind(") {
			return out
		}
		out = append(out, name)
	}
}

type builder struct {
	res *sim.Result
	d   *data
	strTable
	lanes map[string]int // lane name → index
	open  map[model.JobID]int
	pause map[string]int        // lane name → open pause span
	state map[model.EventID]int // event id → its commit, for links
	msgs  map[int64]int         // message → its last publish
	dels  map[[2]int64]int      // message, delivery → its deliver
	brk   int                   // open breaker span, -1: none
}

// strTable numbers the strings of data.Strs (tenants, keys), each once.
type strTable struct {
	strs map[string]int64
	list *[]string
}

func newStrTable(d *data) strTable { return strTable{strs: map[string]int64{"": 0}, list: &d.Strs} }

func (t strTable) str(s string) int64 {
	if i, ok := t.strs[s]; ok {
		return i
	}
	i := int64(len(*t.list))
	*t.list = append(*t.list, s)
	t.strs[s] = i
	return i
}

// event adds history event i: its mark, and what it opens or closes.
func (b *builder) event(i int) error {
	e := &b.res.History[i]
	if e.Seq != uint64(i+1) {
		return fmt.Errorf("history event %d has number #%d: the history is not whole", i, e.Seq)
	}
	flags := int64(0)
	if e.OK {
		flags |= flagOK
	}
	b.d.Ev = append(b.d.Ev, micros(e.At), int64(b.lanes[laneName(e)]), int64(e.Kind), int64(e.Job), int64(e.Other),
		b.str(e.Tenant), b.str(e.Key), int64(e.EventID), flags, int64(glyphOf(e)))
	b.d.Text = append(b.d.Text, string(e.AppendText(nil)))
	b.leases(i, e)
	b.spans(i, e)
	b.link(i, e)
	return nil
}

// laneName is the row an event is drawn in: one per actor incarnation,
// every client in one, the breaker apart from the simulator.
func laneName(e *model.Event) string {
	switch {
	case e.Actor.Role == model.RoleClient:
		return "clients"
	case e.Kind == model.EvBreaker:
		return "breaker"
	case e.Actor.Role == model.RoleNone:
		return "sim"
	}
	return e.Actor.String()
}

// roleOrder fixes the rows top to bottom: the request side, the workers,
// then the outbox's way to the consumer, the operator and the system.
var roleOrder = []string{"client", "api", "w", "relay", "broker", "consumer", "op", "breaker", "sim"}

func roleOf(e *model.Event) string {
	switch {
	case e.Kind == model.EvBreaker:
		return "breaker"
	case e.Actor.Role == model.RoleNone:
		return "sim"
	}
	return e.Actor.Role.String()
}

// makeLanes lists the lanes in roleOrder, actors by id and incarnation.
func (b *builder) makeLanes() {
	type key struct {
		role   int
		id, in int32
	}
	keys := map[string]key{}
	var names []string
	for i := range b.res.History {
		e := &b.res.History[i]
		name := laneName(e)
		if _, ok := keys[name]; ok {
			continue
		}
		role := indexOf(roleOrder, roleOf(e))
		k := key{role, e.Actor.ID, e.Actor.Incarnation}
		if name == "clients" {
			k.id, k.in = 0, 0
		}
		keys[name] = k
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int {
		a, c := keys[x], keys[y]
		return cmp.Or(cmp.Compare(a.role, c.role), cmp.Compare(a.id, c.id), cmp.Compare(a.in, c.in))
	})
	for i, name := range names {
		b.lanes[name] = i
		b.d.Lanes = append(b.d.Lanes, lane{Name: name, Role: roleOrder[keys[name].role], From: 0, To: b.d.End})
	}
	b.lifetimes()
}

// lifetimes sets when each incarnation started (its restart) and ended
// (its crash).
func (b *builder) lifetimes() {
	for i := range b.res.History {
		e := &b.res.History[i]
		l := &b.d.Lanes[b.lanes[laneName(e)]]
		switch e.Kind {
		case model.EvRestart:
			l.From = micros(e.At)
		case model.EvCrash:
			l.To, l.Crashed = micros(e.At), true
		}
	}
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return len(xs)
}

// rateLimits draws the plan's 429 bursts across the worker lanes.
func (b *builder) rateLimits() {
	for _, f := range b.res.Realized.Faults {
		if f.Kind == faults.RateLimit {
			b.d.Spans = append(b.d.Spans, spanBurst, -1, micros(f.At), micros(f.At+f.For), -1)
		}
	}
}

// violations lists every violation with the events it names, and the
// critical path of each invariant (sim.TimelineIndices), the same events
// the CLI and the reports print.
func (b *builder) violations(invariant string) {
	b.d.addViolations(b.res.Violations, len(b.res.History), func(inv string) []int { return sim.TimelineIndices(b.res, inv) }, invariant)
}

// addViolations lists vs, each with the events it names (Seq s is event
// s-1 of a history of n events), and per invariant the events path
// gives; the violation shown first is the first of invariant ("": the
// first one).
func (d *data) addViolations(vs []invariants.Violation, n int, path func(inv string) []int, invariant string) {
	groups := map[string]int{}
	for _, v := range vs {
		g, ok := groups[v.Invariant]
		if !ok {
			g = len(d.Involved)
			groups[v.Invariant] = g
			var idx []int32
			for _, k := range path(v.Invariant) {
				idx = append(idx, int32(k))
			}
			d.Involved = append(d.Involved, idx)
		}
		var evs []int32
		for _, seq := range v.Events {
			if seq >= 1 && seq <= uint64(n) {
				evs = append(evs, int32(seq-1))
			}
		}
		if d.Selected < 0 && (invariant == "" || v.Invariant == invariant) {
			d.Selected = len(d.Violations)
		}
		d.Violations = append(d.Violations, violation{Invariant: v.Invariant, Text: v.String(), Job: int64(v.Job), Events: evs, Group: g})
	}
	if d.Selected < 0 && len(d.Violations) > 0 {
		d.Selected = 0
	}
}

// localize writes each violation in language l beside its English text
// (vs are the violations build read, in its order).
func (d *data) localize(l Lang, vs []invariants.Violation) {
	if l == En {
		return
	}
	for i := range d.Violations {
		d.Violations[i].Local, _ = l.ViolationText(vs[i])
	}
}
