package timeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/durasim/durasim/internal/browser"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// targetLine is op i's line as the page shows it: its trace line with
// its event number after its time.
func targetLine(res *targetsim.Result, i int) string {
	t, rest, _ := strings.Cut(res.Trace[i], " ")
	return fmt.Sprintf("%s #%d %s", t, i+1, rest)
}

// TestTargetTimelineInBrowser loads the page of a failing target run —
// River with the handler that writes its effect outside the job's
// transaction, seed 17: a crash after the effect, the job rescued, the
// effect written twice — with its shrunk counterexample first, in
// Chromium with the network blocked: no console error, a lane per actor,
// a mark per op, attempt bars, the violation's ops ringed, the fault
// noted where it struck, and the same reading of it as the model's
// pages give (lines, hover, only the jobs involved, layout on a desktop
// and on a phone).
func TestTargetTimelineInBrowser(t *testing.T) {
	design, err := targetsim.LookupDesign("effect-outside-tx")
	if err != nil {
		t.Fatal(err)
	}
	cfg := targetsim.DefaultConfig()
	cfg.Design, cfg.KeepTrace = design, true
	res := runTarget(t, cfg, 17)
	if !res.Failed() {
		t.Fatal("seed 17 of effect-outside-tx should fail")
	}
	q, _ := river()
	riverMu.Lock()
	sh, err := targetsim.Shrink(context.Background(), q, cfg, 17, res, "")
	riverMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	inv := res.Violations[0].Invariant
	page := Page{Lang: En, Title: "seed 17", Runs: []Run{
		{Label: "shrunk counterexample", Target: sh.Result, Invariant: inv, Command: targetsim.Command("replay", "river", "", sh.Config, 17), Shrunk: true},
		{Label: "whole run", Target: res, Invariant: inv},
	}}
	p, file := openOneTimeline(t, "seed-17.html", page)
	t.Run("lanes and marks", func(t *testing.T) { checkTargetCounts(t, p, 0, sh.Result) })
	t.Run("trace lines", func(t *testing.T) { checkTargetLines(t, p, 0, sh.Result) })
	t.Run("violation", func(t *testing.T) { checkTargetViolation(t, p, 0, sh.Result, inv) })
	t.Run("hover", func(t *testing.T) { checkTargetHover(t, p, 0, sh.Result) })
	t.Run("only the jobs involved", func(t *testing.T) { checkTargetInvolved(t, p, 0, sh.Result, inv) })
	browser.CheckLayout(t, p, "target page", "")
	browser.CheckDrawn(t, "target page, tab 1", browser.Eval[[]browser.Drawn](t, p, "window.durasimTimelines[0].layout()")...)
	screenshot(t, p, "timeline-target-shrunk.png")
	p.Do(t, chromedp.Click(chromedp.CSS(`[aria-controls="dtl1-panel"]`)))
	t.Run("whole run: lanes and marks", func(t *testing.T) { checkTargetCounts(t, p, 1, res) })
	t.Run("whole run: trace lines", func(t *testing.T) { checkTargetLines(t, p, 1, res) })
	t.Run("whole run: violation", func(t *testing.T) { checkTargetViolation(t, p, 1, res, inv) })
	browser.CheckDrawn(t, "target page, tab 2", browser.Eval[[]browser.Drawn](t, p, "window.durasimTimelines[1].layout()")...)
	screenshot(t, p, "timeline-target-whole.png")
	p.SetViewport(t, browser.Phone, browser.PhoneH, true)
	p.Load(t, file)
	browser.CheckLayout(t, p, "target page on a phone", "")
	browser.CheckDrawn(t, "target page on a phone", browser.Eval[[]browser.Drawn](t, p, "window.durasimTimelines[0].layout()")...)
	screenshot(t, p, "timeline-target-phone.png")
	p.CheckClean(t)
}

// checkTargetCounts: one lane per actor (each worker incarnation among
// them), one event per op, marks, bars and links drawn.
func checkTargetCounts(t *testing.T, p *browser.Page, k int, res *targetsim.Result) {
	in := tlInfo(t, p, k)
	var want []string
	for _, o := range res.Ops {
		if !slices.Contains(want, o.Actor) {
			want = append(want, o.Actor)
		}
	}
	for _, w := range res.Incarnations {
		if !slices.Contains(want, w.Name) {
			want = append(want, w.Name)
		}
	}
	slices.Sort(want)
	got := slices.Clone(in.LaneNames)
	slices.Sort(got)
	if !slices.Equal(got, want) || in.LaneLabels != len(want) {
		t.Errorf("lanes %v (%d labels), want %v", in.LaneNames, in.LaneLabels, want)
	}
	if in.Events != len(res.Ops) || in.Shown != len(res.Ops) {
		t.Errorf("%d events, %d shown; the run has %d ops", in.Events, in.Shown, len(res.Ops))
	}
	if in.Marks == 0 || in.Marks > len(res.Ops) || in.Bars == 0 || in.Links == 0 {
		t.Errorf("drew %d marks, %d attempt bars, %d links", in.Marks, in.Bars, in.Links)
	}
}

func checkTargetLines(t *testing.T, p *browser.Page, k int, res *targetsim.Result) {
	got := shownLines(t, p, k)
	if len(got) != len(res.Ops) {
		t.Fatalf("the page shows %d lines, the run has %d ops", len(got), len(res.Ops))
	}
	for i, line := range got {
		if first, _, _ := strings.Cut(line, "\n"); first != targetLine(res, i) {
			t.Fatalf("line %d: the page shows %q, want %q", i+1, line, targetLine(res, i))
		}
	}
}

// checkTargetViolation: the banner states the violation, and the ops it
// names are the events ringed.
func checkTargetViolation(t *testing.T, p *browser.Page, k int, res *targetsim.Result, inv string) {
	banner := browser.Eval[string](t, p, fmt.Sprintf(`document.querySelector("#dtl%d .dtl-violation").textContent`, k))
	v := res.First(inv)
	if !strings.Contains(banner, inv) || !strings.Contains(banner, v.Message) {
		t.Errorf("banner %q does not state %q", banner, v)
	}
	named := browser.Eval[[]int](t, p, fmt.Sprintf(`window.durasimTimelines[%d].d.violations[window.durasimTimelines[%d].violation].events`, k, k))
	var want []int
	for _, seq := range v.Events {
		want = append(want, int(seq)-1)
	}
	if !slices.Equal(named, want) || len(want) < 2 {
		t.Errorf("ringed events %v, the violation names %v", named, want)
	}
}

// checkTargetHover: hovering each op the violation names, and each of
// two ops of one lane at one instant, shows its line; hovering the op a fault struck shows the fault too.
func checkTargetHover(t *testing.T, p *browser.Page, k int, res *targetsim.Result) {
	tip := func(i int) string {
		x, y := point(t, p, k, i)
		p.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
		return browser.Eval[string](t, p, fmt.Sprintf(`(function(){var e=document.querySelector("#dtl%d .dtl-tip");return e.hidden?"(hidden)":e.textContent})()`, k))
	}
	// Ops of one lane at one instant (an effect and the crash after it,
	// an effect, its completion and its commit) are drawn side by side:
	// each shows its own line.
	for _, seq := range res.Violations[0].Events {
		i := int(seq) - 1
		if got, _, _ := strings.Cut(tip(i), "\n"); got != targetLine(res, i) {
			t.Errorf("hovering event #%d shows %q, want %q", i+1, got, targetLine(res, i))
		}
	}
	same := 0
	for i := 1; i < len(res.Ops) && same == 0; i++ {
		if o := res.Ops[i]; o.T == res.Ops[i-1].T && o.Actor == res.Ops[i-1].Actor {
			same = i
		}
	}
	if same == 0 {
		t.Fatal("no lane has two ops at one instant")
	}
	for i := same - 1; i <= same; i++ {
		if got, _, _ := strings.Cut(tip(i), "\n"); got != targetLine(res, i) {
			t.Errorf("hovering event #%d, one of two at %s, shows %q", i+1, target.FormatSeconds(res.Ops[i].T), got)
		}
	}
	if len(res.Strikes) == 0 {
		t.Fatal("the shrunk run has no fault")
	}
	s := res.Strikes[0]
	want := targetLine(res, int(s.Op)-1) + "\nfault of the plan: " + s.Fault.String()
	if got := tip(int(s.Op) - 1); got != want {
		t.Errorf("hovering the op fault %s struck shows %q, want %q", s.Fault, got, want)
	}
}

// checkTargetInvolved: "only the jobs involved" keeps the ops of the
// violation's jobs up to the last op it names, those ops among them.
func checkTargetInvolved(t *testing.T, p *browser.Page, k int, res *targetsim.Result, inv string) {
	clickInvolved(t, p, k)
	shown := browser.Eval[[]int](t, p, fmt.Sprintf("window.durasimTimelines[%d].shownIndices()", k))
	v := res.First(inv)
	jobs := map[target.JobID]bool{}
	for _, seq := range v.Events {
		jobs[res.Ops[seq-1].Job] = true
	}
	var want []int
	for i, o := range res.Ops {
		if o.Seq <= v.Events[len(v.Events)-1] && (jobs[o.Job] || slices.Contains(v.Events, o.Seq)) {
			want = append(want, i)
		}
	}
	if !slices.Equal(shown, want) || len(want) >= len(res.Ops) {
		t.Errorf("only the jobs involved shows %v, want %v (of %d)", plusOneInts(shown), plusOneInts(want), len(res.Ops))
	}
	clickInvolved(t, p, k)
}

func plusOneInts(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + 1
	}
	return out
}
