package timeline

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"html"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// river is one River queue on in-memory SQLite for the binary's target
// runs (a queue runs one seed at a time: they take turns).
var river = sync.OnceValues(func() (*rivertarget.Queue, error) {
	return rivertarget.Open(context.Background(), rivertarget.SQLite, "", rivertarget.DefaultConfig())
})

var riverMu sync.Mutex

// runTarget runs seed of cfg on River with its trace kept.
func runTarget(t *testing.T, cfg targetsim.Config, seed uint64) *targetsim.Result {
	t.Helper()
	q, err := river()
	if err != nil {
		t.Fatal(err)
	}
	riverMu.Lock()
	defer riverMu.Unlock()
	cfg.KeepTrace = true
	res, err := targetsim.Run(context.Background(), q, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// river430 is River's own failure at seed 430 of the default sweep (a
// job fetched for one attempt more than its max_attempts), as its shrunk
// configuration replays it (durasim shrink, with the transient of an
// earlier shrink kept): a crash inside a transaction, a pause, a slow, a
// transient and a few-attempts fault, every lane kind.
func river430(t *testing.T) *targetsim.Result {
	cfg := targetsim.DefaultConfig()
	cfg.Swarm, cfg.Only = false, []int{2, 3, 4, 5, 6}
	p, err := targetsim.Vocabulary("river").Parse("crash before_commit nth=2 worker=w3; " +
		"pause after_report nth=1 worker=w3 for=12s; slow doc=6 attempt=1 for=15s; transient doc=2 attempt=1; few-attempts doc=6 max=2")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plan = p
	res := runTarget(t, cfg, 430)
	if !res.Failed() || res.Violations[0].Invariant != "target-attempts" {
		t.Fatalf("seed 430 replayed shrunk should fail target-attempts: %v", res.Violations)
	}
	return res
}

// TestTargetDataGolden pins the data a target run's page draws (River's
// seed 430, shrunk), written out field by field, one line per lane,
// event, bar, span, line, link and violation, then the size and hash of
// the JSON the page carries: regenerate with -update and review the diff.
func TestTargetDataGolden(t *testing.T) {
	res := river430(t)
	d, err := buildTarget(res, "")
	if err != nil {
		t.Fatal(err)
	}
	d.localize(PtBR, res.Violations)
	js, err := encode(d, PtBR)
	if err != nil {
		t.Fatal(err)
	}
	// The dump says what changed; the JSON's size and hash, that nothing
	// else did (the UI's words among it).
	h := fnv.New64a()
	_, _ = h.Write(js)
	got := dumpData(d) + fmt.Sprintf("json %d bytes fnv64a %016x\n", len(js), h.Sum64())
	again, err := buildTarget(river430(t), "")
	if err != nil {
		t.Fatal(err)
	}
	again.localize(PtBR, res.Violations)
	if js2, _ := encode(again, PtBR); !bytes.Equal(js, js2) {
		t.Fatal("two runs of the same seed give different page data")
	}
	golden := filepath.Join("testdata", "target-river-430.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("the page data differ from %s (run with -update and review the diff):\n%s", golden, firstDiff(got, string(want)))
	}
}

// dumpData writes every field of d in a reviewable text.
func dumpData(d *data) string {
	var b strings.Builder
	fmt.Fprintf(&b, "clock %s end %d selected %d\nlegend %s\n", d.Clock, d.End, d.Selected, strings.Join(d.Legend, " "))
	for i, l := range d.Lanes {
		fmt.Fprintf(&b, "lane %d %s role=%s from=%d to=%d crashed=%v\n", i, l.Name, l.Role, l.From, l.To, l.Crashed)
	}
	for i := range d.Text {
		e := d.Ev[i*evStride : (i+1)*evStride]
		fmt.Fprintf(&b, "ev #%d at=%d lane=%s kind=%s job=%d other=%d tenant=%q key=%q tx=%d flags=%d glyph=%s | %s\n", i+1, e[0], d.Lanes[e[1]].Name,
			d.Kinds[e[2]], e[3], e[4], d.Strs[e[5]], d.Strs[e[6]], e[7], e[8], d.Glyphs[e[9]], d.Text[i])
	}
	for k := 0; k < len(d.Bars); k += barStride {
		x := d.Bars[k : k+barStride]
		fmt.Fprintf(&b, "bar lane=%s job=%d fence=%d attempt=%d from=%d valid=%d to=%d end=%s event=#%d\n", d.Lanes[x[0]].Name, x[1], x[2], x[3], x[4], x[5], x[6],
			glyphName(d, x[7]), x[8]+1)
	}
	for k := 0; k < len(d.Spans); k += spanStride {
		x := d.Spans[k : k+spanStride]
		fmt.Fprintf(&b, "span %s lane=%d from=%d to=%d event=#%d\n", d.SpanKinds[x[0]], x[1], x[2], x[3], x[4]+1)
	}
	for k := 0; k < len(d.Lines); k += lineStride {
		x := d.Lines[k : k+lineStride]
		fmt.Fprintf(&b, "line %s at=%d job=%d event=#%d label=%q\n", d.LineKinds[x[0]], x[1], x[2], x[3]+1, d.LineLabels[k/lineStride])
	}
	for k := 0; k+1 < len(d.Links); k += 2 {
		fmt.Fprintf(&b, "link #%d -> #%d\n", d.Links[k]+1, d.Links[k+1]+1)
	}
	for k, at := range d.NoteAt {
		fmt.Fprintf(&b, "note #%d %s\n", at+1, d.Notes[k])
	}
	for _, v := range d.Violations {
		fmt.Fprintf(&b, "violation %s job=%d events=%v group=%d\n  en %s\n  pt %s\n", v.Invariant, v.Job, plusOne(v.Events), v.Group, v.Text, v.Local)
	}
	for g, idx := range d.Involved {
		fmt.Fprintf(&b, "involved %d %v\n", g, plusOne(idx))
	}
	return b.String()
}

func glyphName(d *data, g int64) string {
	if g < 0 {
		return "-"
	}
	return d.Glyphs[g]
}

func plusOne(idx []int32) []int32 {
	out := make([]int32, len(idx))
	for i, k := range idx {
		out[i] = k + 1
	}
	return out
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n\tgot  %s\n\twant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestTargetData checks what the golden cannot say by itself: every op
// is one event with its whole trace line, each worker incarnation has a
// lane that starts and ends as it lived, every fault that took effect is
// noted where it struck, and the violation names ops of its own run.
func TestTargetData(t *testing.T) {
	res := river430(t)
	d, err := buildTarget(res, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Text) != len(res.Ops) || strings.Join(d.Text, "\n") != strings.Join(res.Trace, "\n") {
		t.Fatalf("%d events for %d ops, or their texts are not the trace", len(d.Text), len(res.Ops))
	}
	for _, in := range res.Incarnations {
		k := indexOfLane(d, in.Name)
		if k < 0 {
			t.Fatalf("no lane for %s", in.Name)
		}
		if l := d.Lanes[k]; l.From != in.From/1000 || l.To != in.To/1000 || l.Crashed != in.Crashed {
			t.Errorf("lane %s lives %d–%d (crashed %v), the incarnation %d–%d (%v)", l.Name, l.From, l.To, l.Crashed, in.From/1000, in.To/1000, in.Crashed)
		}
	}
	for _, name := range []string{"client", "w0", "w3", "w3.1", "rescuer", "scheduler"} {
		if indexOfLane(d, name) < 0 {
			t.Errorf("no lane %s among %v", name, d.Lanes)
		}
	}
	if len(d.Notes) < res.Realized.Len() {
		t.Errorf("%d fault notes for %d faults that took effect", len(d.Notes), res.Realized.Len())
	}
	for k, at := range d.NoteAt {
		if !strings.HasPrefix(d.Notes[k], "crash") || res.Ops[at].Kind.String() == "crash" {
			continue
		}
		t.Errorf("crash fault %q noted on %q, not on a crash", d.Notes[k], res.Trace[at])
	}
	v := d.Violations[d.Selected]
	if len(v.Events) < 2 || int(v.Events[len(v.Events)-1]) >= len(res.Ops) {
		t.Errorf("the violation names events %v of %d", v.Events, len(res.Ops))
	}
	if _, err := buildTarget(&targetsim.Result{Seed: 1}, ""); err == nil {
		t.Error("a run without its ops built a page")
	}
}

func indexOfLane(d *data, name string) int {
	for i, l := range d.Lanes {
		if l.Name == name {
			return i
		}
	}
	return -1
}

// TestTargetPageTranslated: a target page in Portuguese shows its
// violations in Portuguese (River's seed 430; the handler design that
// writes its effect outside the transaction, seed 17).
func TestTargetPageTranslated(t *testing.T) {
	design, err := targetsim.LookupDesign("effect-outside-tx")
	if err != nil {
		t.Fatal(err)
	}
	cfg := targetsim.DefaultConfig()
	cfg.Design = design
	for _, res := range []*targetsim.Result{river430(t), runTarget(t, targetsim.DefaultConfig(), 430), runTarget(t, cfg, 17)} {
		if !res.Failed() {
			t.Fatalf("seed %d does not fail", res.Seed)
		}
		for _, v := range res.Violations {
			if pt, ok := PtBR.Message(v.Message); !ok || pt == v.Message {
				t.Errorf("seed %d: no Portuguese for %q", res.Seed, v.Message)
			}
		}
		var b bytes.Buffer
		if err := (Page{Lang: PtBR, Title: "t", Runs: []Run{{Label: "whole run", Target: res}}}).Write(&b); err != nil {
			t.Fatal(err)
		}
		if pt, _ := PtBR.ViolationText(res.Violations[0]); !bytes.Contains(b.Bytes(), []byte(html.EscapeString(strings.TrimPrefix(pt, res.Violations[0].Invariant+": ")))) {
			t.Errorf("seed %d: the page does not show %q", res.Seed, pt)
		}
	}
}

// TestTargetViolationsTranslated: every violation each handler design
// meets in a short River sweep (seeds 1 to 20) has Portuguese, so that a Portuguese target
// page does not show it in English alone (a shape missing fails the test
// with an example: add it to messages.go).
func TestTargetViolationsTranslated(t *testing.T) {
	missing, seen := map[string]bool{}, 0
	for _, d := range targetsim.Designs() {
		cfg := targetsim.DefaultConfig()
		cfg.Design = d
		for seed := uint64(1); seed <= 20; seed++ {
			for _, v := range runTarget(t, cfg, seed).Violations {
				seen++
				if _, ok := PtBR.Message(v.Message); !ok && !missing[v.Invariant+v.Message] {
					missing[v.Invariant+v.Message] = true
					t.Errorf("%s seed %d: no Portuguese for %s: %q", d, seed, v.Invariant, v.Message)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no design violated anything in seeds 1 to 20")
	}
	t.Logf("%d violations translated", seen)
}
