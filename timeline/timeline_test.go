package timeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// failing is seed 5 of no-idempotency (it applies an effect twice) kept
// with its trace, and its shrunk counterexample; built once per binary.
var failing = sync.OnceValues(func() (*sim.Result, *sim.Shrunk) {
	cfg := sim.DefaultConfig()
	cfg.Variant, cfg.KeepTrace = "no-idempotency", true
	res, err := sim.Run(cfg, 5)
	if err != nil || !res.Failed() {
		panic("seed 5 of no-idempotency should fail")
	}
	sh, err := sim.Shrink(cfg, 5, res, 0)
	if err != nil {
		panic(err)
	}
	return res, sh
})

func failingPage(t *testing.T) Page {
	t.Helper()
	res, sh := failing()
	return Page{Lang: En, Title: "seed 5", Runs: []Run{
		{Label: "shrunk counterexample", Result: sh.Result, Invariant: sh.Invariant, Command: "durasim replay -seed 5 ...", Shrunk: true},
		{Label: "whole run", Result: res, Invariant: sh.Invariant},
	}}
}

func render(t *testing.T, p Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestByteStable renders the same page twice, from two runs of the same
// seed: the bytes must be the same.
func TestByteStable(t *testing.T) {
	a := render(t, failingPage(t))
	cfg := sim.DefaultConfig()
	cfg.Variant, cfg.KeepTrace = "no-idempotency", true
	res, err := sim.Run(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	p := failingPage(t)
	p.Runs[1].Result = res
	if b := render(t, p); !bytes.Equal(a, b) {
		t.Fatal("two renderings of the same run differ")
	}
	if bytes.Contains(a, []byte("http://")) || bytes.Contains(a, []byte("https://")) {
		t.Error("the page names a URL: it must need no network")
	}
}

// decoded is the data of run r as the script receives it.
func decoded(t *testing.T, res *sim.Result, inv string) *data {
	t.Helper()
	d, err := build(res, inv)
	if err != nil {
		t.Fatal(err)
	}
	js, err := encode(d, En)
	if err != nil {
		t.Fatal(err)
	}
	var back data
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestData checks the data against the history it comes from: one mark
// per event on its actor's lane, one bar per granted lease, links that
// join one effect's commit, publish and apply, and the violation's events.
func TestData(t *testing.T) {
	res, sh := failing()
	d := decoded(t, res, sh.Invariant)
	if len(d.Text) != len(res.Trace) || len(d.Ev) != evStride*len(res.Trace) {
		t.Fatalf("%d texts and %d numbers for %d events", len(d.Text), len(d.Ev), len(res.Trace))
	}
	leases := 0
	for i := range res.History {
		e := &res.History[i]
		if !strings.HasSuffix(res.Trace[i], d.Text[i]) {
			t.Fatalf("event %d: text %q is not the end of its trace line %q", i, d.Text[i], res.Trace[i])
		}
		if got := d.Lanes[d.Ev[i*evStride+1]].Name; got != laneName(e) {
			t.Fatalf("event %d on lane %s, want %s", i, got, laneName(e))
		}
		if e.Kind == model.EvLease && e.OK {
			leases++
		}
	}
	if len(d.Bars) != leases*barStride {
		t.Errorf("%d bars for %d leases", len(d.Bars)/barStride, leases)
	}
	for k := 0; k < len(d.Links); k += 2 {
		a, b := &res.History[d.Links[k]], &res.History[d.Links[k+1]]
		if a.Job != b.Job || a.Seq >= b.Seq || !(a.EventID == b.EventID || a.Kind == model.EvPublish) {
			t.Errorf("link #%d → #%d joins events of different effects:\n%s\n%s", a.Seq, b.Seq, res.Trace[a.Seq-1], res.Trace[b.Seq-1])
		}
	}
	if len(d.Links) == 0 {
		t.Error("no commit → publish → apply link")
	}
	v := d.Violations[d.Selected]
	if v.Invariant != sh.Invariant || len(v.Events) == 0 {
		t.Fatalf("violation shown: %+v, want one of %s naming events", v, sh.Invariant)
	}
	want := sim.TimelineIndices(res, v.Invariant)
	if got := d.Involved[v.Group]; len(got) != len(want) {
		t.Errorf("involved: %d events, sim.Timeline selects %d", len(got), len(want))
	}
}

// TestLanesInOrder puts requests first, then workers by id and
// incarnation, then the outbox's way, the operator and the system.
func TestLanesInOrder(t *testing.T) {
	res, _ := failing()
	d := decoded(t, res, "")
	var names []string
	for i, l := range d.Lanes {
		names = append(names, l.Name)
		if i > 0 && indexOf(roleOrder, l.Role) < indexOf(roleOrder, d.Lanes[i-1].Role) {
			t.Errorf("lane %s (%s) after %s (%s)", l.Name, l.Role, d.Lanes[i-1].Name, d.Lanes[i-1].Role)
		}
	}
	if got := strings.Join(names, " "); !strings.HasPrefix(got, "clients api w0 w1 w2 w3 relay") || !strings.HasSuffix(got, "consumer op sim") {
		t.Errorf("lanes %s", got)
	}
}

// TestScriptSafe: no text of a run can end the data's <script> element.
func TestScriptSafe(t *testing.T) {
	res, _ := failing()
	evil := *res
	evil.History = append([]model.Event(nil), res.History...)
	evil.History[0].Text = "</script><script>alert(1)</script>"
	js, err := encode(mustBuild(t, &evil), En)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ToLower(js), []byte("</script")) {
		t.Fatal("the data can close its script element")
	}
}

func mustBuild(t *testing.T, res *sim.Result) *data {
	t.Helper()
	d, err := build(res, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNoNulls: a run with no lease, span, link or violation still gives
// the script arrays.
func TestNoNulls(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Docs, cfg.Swarm, cfg.KeepTrace = 1, false, true
	res, err := sim.Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	res.History = res.History[:2] // an accept and an enqueue: nothing else
	js, err := encode(mustBuild(t, res), En)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte("null")) {
		t.Errorf("the data holds null: %.300s", js)
	}
}

// TestNoHistory refuses a run kept without its trace.
func TestNoHistory(t *testing.T) {
	cfg := sim.DefaultConfig()
	res, err := sim.Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fragment(Run{Result: res}, "x", En); err == nil || !strings.Contains(err.Error(), "KeepTrace") {
		t.Fatalf("err = %v, want one that asks for KeepTrace", err)
	}
}
