package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/durasim/durasim/internal/browser"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// shotDir is where screenshots go: $DURASIM_SCREENSHOTS when set (to keep
// them), else the test's temporary directory.
func shotDir(t *testing.T) string {
	if dir := os.Getenv("DURASIM_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// info is what the script reports of one timeline.
type info struct {
	ID         string   `json:"id"`
	Lanes      int      `json:"lanes"`
	LaneLabels int      `json:"laneLabels"`
	LaneNames  []string `json:"laneNames"`
	Events     int      `json:"events"`
	Shown      int      `json:"shown"`
	Marks      int      `json:"marks"`
	Bars       int      `json:"bars"`
	Links      int      `json:"links"`
	Draws      int      `json:"draws"`
	Dense      bool     `json:"dense"`
	LastDrawMs float64  `json:"lastDrawMs"`
	FirstDraw  float64  `json:"firstDrawAt"`
	Selected   int      `json:"selected"`
	Violation  int      `json:"violation"`
}

func tlInfo(t *testing.T, p *browser.Page, k int) info {
	t.Helper()
	return browser.Eval[info](t, p, fmt.Sprintf("window.durasimTimelines[%d].info()", k))
}

// wantLanes is the lanes a history needs: one per actor incarnation, one
// for every client, the breaker apart.
func wantLanes(res *sim.Result) []string {
	var out []string
	for i := range res.History {
		e := &res.History[i]
		name := e.Actor.String()
		switch {
		case e.Actor.Role == model.RoleClient:
			name = "clients"
		case e.Kind == model.EvBreaker:
			name = "breaker"
		case e.Actor.Role == model.RoleNone:
			name = "sim"
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// shownLines is the trace lines of the events a timeline shows, as its
// script writes them.
func shownLines(t *testing.T, p *browser.Page, k int) []string {
	t.Helper()
	return browser.Eval[[]string](t, p, fmt.Sprintf(`(function(){var T=window.durasimTimelines[%d];return T.shownIndices().map(function(i){return T.line(i)})})()`, k))
}

// linesWhere is the trace lines of the events that satisfy keep.
func linesWhere(res *sim.Result, keep func(e *model.Event) bool) []string {
	var out []string
	for i := range res.History {
		if keep(&res.History[i]) {
			out = append(out, res.Trace[i])
		}
	}
	return out
}

// openOneTimeline writes page as name in a temporary folder, opens it in
// headless Chromium and checks it started one timeline (a second tab's
// starts when it is shown); it returns the page and the file.
func openOneTimeline(t *testing.T, name string, page Page) (*browser.Page, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, render(t, page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := browser.Start(t).Open(t, file)
	if !browser.Eval[bool](t, p, `window.durasimTimelines.ready === true && window.durasimTimelines.length === 1`) {
		t.Fatal("the page did not start one timeline (the second tab starts when shown)")
	}
	return p, file
}

// TestTimelineInBrowser loads the page of a failing seed in Chromium with
// the network blocked and checks what a person would do with it.
func TestTimelineInBrowser(t *testing.T) {
	res, sh := failing()
	p, _ := openOneTimeline(t, "seed-5.html", failingPage(t))
	t.Run("lanes and marks", func(t *testing.T) { checkCounts(t, p, 0, sh.Result) })
	t.Run("trace lines", func(t *testing.T) { checkLines(t, p, 0, sh.Result) })
	t.Run("violation", func(t *testing.T) { checkViolation(t, p, 0, sh) })
	t.Run("only the jobs involved", func(t *testing.T) { checkInvolved(t, p, 0, sh.Result, sh.Invariant) })
	t.Run("hover", func(t *testing.T) { checkHover(t, p, 0, sh.Result) })
	t.Run("keyboard", func(t *testing.T) { checkKeys(t, p, 0, sh.Result) })
	shots := shotDir(t)
	shot := filepath.Join(shots, "timeline-shrunk.png")
	if why := browser.Blank(p.Screenshot(t, shot)); why != "" {
		t.Errorf("the counterexample's timeline looks blank (%s): %s", why, shot)
	}
	p.Do(t, chromedp.Click(chromedp.CSS(`[aria-controls="dtl1-panel"]`)))
	t.Run("whole run: lanes and marks", func(t *testing.T) { checkCounts(t, p, 1, res) })
	t.Run("whole run: trace lines", func(t *testing.T) { checkLines(t, p, 1, res) })
	t.Run("whole run: search", func(t *testing.T) { checkSearch(t, p, 1, res) })
	t.Run("whole run: only the jobs involved", func(t *testing.T) { checkInvolved(t, p, 1, res, sh.Invariant) })
	shot = filepath.Join(shots, "timeline-whole.png")
	if why := browser.Blank(p.Screenshot(t, shot)); why != "" {
		t.Errorf("the whole run's timeline looks blank (%s): %s", why, shot)
	}
	t.Logf("screenshots (1280x800) in %s", shots)
	p.CheckClean(t)
}

func checkCounts(t *testing.T, p *browser.Page, k int, res *sim.Result) {
	in := tlInfo(t, p, k)
	want := wantLanes(res)
	got := append([]string(nil), in.LaneNames...)
	slices.Sort(got)
	if !slices.Equal(got, want) || in.LaneLabels != len(want) {
		t.Errorf("lanes %v (%d labels), want %v", in.LaneNames, in.LaneLabels, want)
	}
	if in.Events != len(res.Trace) || in.Shown != len(res.Trace) {
		t.Errorf("%d events, %d shown; the trace has %d lines", in.Events, in.Shown, len(res.Trace))
	}
	if in.Marks == 0 || in.Marks > len(res.Trace) || in.Bars == 0 || in.Links == 0 {
		t.Errorf("drew %d marks, %d lease bars, %d links", in.Marks, in.Bars, in.Links)
	}
	if in.Marks != len(res.Trace) && !in.Dense {
		// Marks of one shape within a pixel of each other are drawn once.
		t.Logf("%d marks drawn for %d events", in.Marks, len(res.Trace))
	}
}

// checkLines: the line the script shows for each event (on hover, on
// selection) is its trace line, byte for byte.
func checkLines(t *testing.T, p *browser.Page, k int, res *sim.Result) {
	got := shownLines(t, p, k)
	if !slices.Equal(got, res.Trace) {
		for i := range got {
			if i >= len(res.Trace) || got[i] != res.Trace[i] {
				t.Fatalf("line %d: the page shows %q, the trace says %q", i+1, got[i], res.Trace[min(i, len(res.Trace)-1)])
			}
		}
		t.Fatalf("the page shows %d lines, the trace has %d", len(got), len(res.Trace))
	}
}

func checkViolation(t *testing.T, p *browser.Page, k int, sh *sim.Shrunk) {
	id := fmt.Sprintf("#dtl%d ", k)
	banner := browser.Eval[string](t, p, fmt.Sprintf(`document.querySelector(%q).textContent`, id+".dtl-violation"))
	if !strings.Contains(banner, sh.Invariant) || !strings.Contains(banner, "twice") {
		t.Errorf("banner %q does not state the duplicate effect", banner)
	}
	named := browser.Eval[[]int](t, p, fmt.Sprintf(`window.durasimTimelines[%d].d.violations[window.durasimTimelines[%d].violation].events`, k, k))
	var want []int
	for _, v := range sh.Result.Violations {
		if v.Invariant == sh.Invariant {
			for _, seq := range v.Events {
				want = append(want, int(seq)-1)
			}
			break
		}
	}
	if !slices.Equal(named, want) || len(want) < 2 {
		t.Errorf("highlighted events %v, the violation names %v", named, want)
	}
}

func clickInvolved(t *testing.T, p *browser.Page, k int) {
	p.Do(t, chromedp.Click(chromedp.CSS(fmt.Sprintf("#dtl%d .dtl-involved", k))))
}

func checkInvolved(t *testing.T, p *browser.Page, k int, res *sim.Result, inv string) {
	clickInvolved(t, p, k)
	got, want := shownLines(t, p, k), sim.Timeline(res, inv)
	if !slices.Equal(got, want) {
		t.Errorf("only the jobs involved: %d events shown, sim.Timeline has %d", len(got), len(want))
	}
	if pressed := browser.Eval[string](t, p, fmt.Sprintf(`document.querySelector("#dtl%d .dtl-involved").getAttribute("aria-pressed")`, k)); pressed != "true" {
		t.Errorf("the button is not pressed: %s", pressed)
	}
	clickInvolved(t, p, k)
	if in := tlInfo(t, p, k); in.Shown != len(res.Trace) {
		t.Errorf("after a second click %d events shown, want all %d", in.Shown, len(res.Trace))
	}
}

// search types query into the timeline's search box and waits for the
// filter to apply.
func search(t *testing.T, p *browser.Page, k int, query string) {
	sel := fmt.Sprintf("#dtl%d .dtl-search", k)
	browser.Eval[bool](t, p, fmt.Sprintf(`(document.querySelector(%q).value = "", true)`, sel))
	p.Do(t, chromedp.SendKeys(chromedp.CSS(sel), query))
	ok := browser.Eval[bool](t, p, fmt.Sprintf(`(async function(){var T=window.durasimTimelines[%d];for(var i=0;i<200;i++){if(T.query===%q)return true;await new Promise(function(r){setTimeout(r,10)})}return false})()`, k, query))
	if !ok {
		t.Fatalf("the search %q never applied", query)
	}
}

func checkSearch(t *testing.T, p *browser.Page, k int, res *sim.Result) {
	job := res.History[len(res.History)/2].Job
	for i := len(res.History) / 2; job == 0; i++ {
		job = res.History[i].Job
	}
	ref := res.History[slices.IndexFunc(res.History, func(e model.Event) bool { return e.Job == job })]
	for _, c := range []struct {
		query string
		keep  func(e *model.Event) bool
	}{
		{job.String(), func(e *model.Event) bool { return e.Job == job || e.Other == job }},
		{"commit", func(e *model.Event) bool { return e.Kind == model.EvCommit }},
		{ref.Tenant, func(e *model.Event) bool { return e.Tenant == ref.Tenant }},
		{ref.Key, func(e *model.Event) bool { return strings.Contains(e.Key, ref.Key) }},
		{"commit " + ref.Tenant, func(e *model.Event) bool { return e.Kind == model.EvCommit && e.Tenant == ref.Tenant }},
	} {
		search(t, p, k, c.query)
		got, want := shownLines(t, p, k), linesWhere(res, c.keep)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("search %q: %d events shown, want %d", c.query, len(got), len(want))
		}
		if count := browser.Eval[string](t, p, fmt.Sprintf(`document.querySelector("#dtl%d .dtl-count").textContent`, k)); !strings.HasPrefix(count, fmt.Sprintf("%d of", len(want))) && len(want) < 1000 {
			t.Errorf("search %q: the count says %q", c.query, count)
		}
	}
	search(t, p, k, " ")
}

// point is where event i's mark is on screen.
func point(t *testing.T, p *browser.Page, k, i int) (float64, float64) {
	xy := browser.Eval[map[string]float64](t, p, fmt.Sprintf("window.durasimTimelines[%d].pointOf(%d)", k, i))
	return xy["x"], xy["y"]
}

func checkHover(t *testing.T, p *browser.Page, k int, res *sim.Result) {
	v := res.Violations[0]
	i := int(v.Events[0]) - 1
	x, y := point(t, p, k, i)
	p.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	tip := browser.Eval[string](t, p, fmt.Sprintf(`(function(){var e=document.querySelector("#dtl%d .dtl-tip");return e.hidden?"(hidden)":e.textContent})()`, k))
	if tip != res.Trace[i] {
		t.Errorf("hovering event #%d shows %q, want its trace line %q", i+1, tip, res.Trace[i])
	}
}

// checkKeys clicks the first mark of the violation's job, then steps
// through the job's events with the arrow keys.
func checkKeys(t *testing.T, p *browser.Page, k int, res *sim.Result) {
	job := res.Violations[0].Job
	var path []int
	for i := range res.History {
		if e := &res.History[i]; e.Job == job || e.Other == job {
			path = append(path, i)
		}
	}
	if len(path) < 3 {
		t.Fatalf("job %s has %d events", job, len(path))
	}
	x, y := point(t, p, k, path[0])
	p.Do(t, chromedp.MouseClickXY(x, y))
	detail := fmt.Sprintf(`document.querySelector("#dtl%d .dtl-detail").textContent`, k)
	sel := fmt.Sprintf("window.durasimTimelines[%d].sel", k)
	if got := browser.Eval[int](t, p, sel); got != path[0] {
		t.Fatalf("clicking event #%d selected #%d", path[0]+1, got+1)
	}
	for _, step := range []struct {
		key  string
		want int
	}{{kb.ArrowRight, path[1]}, {kb.ArrowRight, path[2]}, {kb.ArrowLeft, path[1]}} {
		p.Do(t, chromedp.KeyEvent(step.key))
		if got := browser.Eval[int](t, p, sel); got != step.want {
			t.Fatalf("after %q selected #%d, want #%d (the next event of %s)", step.key, got+1, step.want+1, job)
		}
		if text := browser.Eval[string](t, p, detail); !strings.HasPrefix(text, res.Trace[step.want]) {
			t.Errorf("the detail line says %q, want %q", text, res.Trace[step.want])
		}
	}
	p.Do(t, chromedp.KeyEvent(kb.Escape))
}

// TestHundredThousandEvents loads a run of about 100,000 events (seed 3
// of the standard workload with 3,700 documents: 102,958 events) and
// checks the page stays responsive: it draws, zooms, filters and answers.
// It reports the page's size and times (run with -v to see them);
// speed targets go in benchmarks, not here.
func TestHundredThousandEvents(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Docs, cfg.KeepTrace = 3700, true
	res, err := sim.Run(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace) < 100_000 {
		t.Fatalf("%d events, want at least 100,000", len(res.Trace))
	}
	file := filepath.Join(t.TempDir(), "big.html")
	start := time.Now()
	page := render(t, Page{Lang: En, Title: "100,000 events", Runs: []Run{{Label: "whole run", Result: res}}})
	written := time.Since(start)
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	b := browser.Start(t)
	p := b.Open(t, file)
	timing := browser.Eval[map[string]float64](t, p, `(function(){var n=performance.getEntriesByType("navigation")[0],f=performance.getEntriesByType("paint").filter(function(e){return e.name==="first-contentful-paint"})[0];return {fcp:f?f.startTime:-1,dcl:n.domContentLoadedEventEnd,load:n.loadEventEnd}})()`)
	in := tlInfo(t, p, 0)
	if in.Events != len(res.Trace) || in.Draws == 0 || in.Marks == 0 {
		t.Fatalf("the page holds %d events (want %d) and drew %d times", in.Events, len(res.Trace), in.Draws)
	}
	w, h := float64(browser.Viewport)/2, 600.0
	zoom := func(delta float64) float64 {
		before := tlInfo(t, p, 0).Draws
		p.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, w, h, func(q *input.DispatchMouseEventParams) { q.DeltaX, q.DeltaY = 1e-6, delta }))
		ok := browser.Eval[bool](t, p, fmt.Sprintf(`(async function(){for(var i=0;i<500;i++){if(window.durasimTimelines[0].info().draws>%d)return true;await new Promise(function(r){requestAnimationFrame(r)})}return false})()`, before))
		if !ok {
			t.Fatal("the wheel did not redraw the timeline")
		}
		return tlInfo(t, p, 0).LastDrawMs
	}
	full := in.LastDrawMs
	in1 := zoom(-600)
	in2 := zoom(-1500)
	search(t, p, 0, "j4242")
	found := tlInfo(t, p, 0).Shown
	if want := len(linesWhere(res, func(e *model.Event) bool { return e.Job == 4242 || e.Other == 4242 })); found != want {
		t.Errorf("search j4242: %d shown, want %d", found, want)
	}
	shot := filepath.Join(shotDir(t), "timeline-100k.png")
	search(t, p, 0, " ")
	if why := browser.Blank(p.Screenshot(t, shot)); why != "" {
		t.Errorf("the 100,000-event timeline looks blank (%s): %s", why, shot)
	}
	p.CheckClean(t)
	t.Logf("%d events: page %.1f MB (written in %s); first contentful paint %.0f ms, DOMContentLoaded %.0f ms, timeline drawn at %.0f ms, load %.0f ms",
		len(res.Trace), float64(len(page))/1e6, written.Round(time.Millisecond), timing["fcp"], timing["dcl"], in.FirstDraw, timing["load"])
	t.Logf("redraw: whole run %.1f ms (dense: %v), zoomed in %.1f ms, further %.1f ms; screenshot %s", full, in.Dense, in1, in2, shot)
}

// TestTimelineReadable loads the page of a failing seed (in English, and
// in Portuguese) on a desktop and on a phone and checks what a reader
// meets: no element wider than the viewport, no text on text, no label
// of the canvases cut off or on a mark (the lease labels, "quiesce" and
// the idle gaps on the axis), a legend that explains a lease's label, an
// incarnation's suffix and a crash's cross, a header that says each tab
// shows its own run's violation and a shrunk tab that says its ids are
// its own, the violation in the page's language with the English a
// click away, a tooltip that follows the arrow keys, and, with idle gaps
// not compressed, no blank before the run's first event.
func TestTimelineReadable(t *testing.T) {
	_, sh := failing()
	dir := t.TempDir()
	b := browser.Start(t)
	var p *browser.Page
	for _, l := range []Lang{En, PtBR} {
		page := failingPage(t)
		page.Lang = l
		file := filepath.Join(dir, "seed-5-"+string(l)+".html")
		if err := os.WriteFile(file, render(t, page), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, vp := range []struct {
			name   string
			w, h   int
			mobile bool
		}{{"desktop", browser.Viewport, browser.ViewportH, false}, {"phone", browser.Phone, browser.PhoneH, true}} {
			if p == nil {
				p = b.Open(t, file)
			}
			p.SetViewport(t, vp.w, vp.h, vp.mobile)
			p.Load(t, file)
			what := fmt.Sprintf("%s page on a %s (%d px)", l, vp.name, vp.w)
			browser.CheckLayout(t, p, what, "")
			for _, tab := range []int{0, 1} {
				if tab == 1 {
					p.Do(t, chromedp.Click(chromedp.CSS(`[aria-controls="dtl1-panel"]`)))
				}
				drawn := browser.Eval[[]browser.Drawn](t, p, fmt.Sprintf("window.durasimTimelines[%d].layout()", tab))
				browser.CheckDrawn(t, fmt.Sprintf("%s, tab %d", what, tab+1), drawn...)
				if axis := drawn[1].Text; !slices.ContainsFunc(axis, func(b browser.Box) bool { return b.What == "quiesce" }) {
					t.Errorf("%s, tab %d: the axis does not show the quiescence line's label (%v)", what, tab+1, axis)
				}
			}
			if vp.mobile {
				screenshot(t, p, fmt.Sprintf("timeline-phone-%s.png", l))
			}
		}
		t.Run(string(l)+"/words", func(t *testing.T) { checkWords(t, p, l, sh) })
	}
	t.Run("tooltip follows the keys", func(t *testing.T) { checkTipFollows(t, p) })
	t.Run("no blank before the first event", func(t *testing.T) { checkNoBlank(t, p) })
	p.CheckClean(t)
}

func screenshot(t *testing.T, p *browser.Page, name string) {
	t.Helper()
	shot := filepath.Join(shotDir(t), name)
	if why := browser.Blank(p.Screenshot(t, shot)); why != "" {
		t.Errorf("%s looks blank: %s", shot, why)
	}
}

// checkWords: the page's words, in language l, on the page now loaded.
func checkWords(t *testing.T, p *browser.Page, l Lang, sh *sim.Shrunk) {
	type words struct {
		Key, Note, Shrunk, Msg, Orig, Option string
		Shrunks                              int
	}
	w := browser.Eval[words](t, p, `(function(){function q(s){var e=document.querySelector(s);return e?e.textContent:""}
		return {Key:q("#dtl0 .dtl-key"),Note:q(".dtl-head .dtl-note"),Shrunk:q("#dtl0 .dtl-shrunk"),Msg:q("#dtl0 .dtl-msg"),Orig:q("#dtl0 .dtl-orig-text"),
			Option:q("#dtl0 .dtl-vsel option[selected]"),Shrunks:document.querySelectorAll(".dtl-shrunk").length}})()`)
	for _, want := range []string{"j3 f2 a1", "j3", "2", "1", "w0.1", "w0", "✕"} {
		if !strings.Contains(w.Key, want) {
			t.Errorf("the legend's key %q does not explain %q", w.Key, want)
		}
	}
	if w.Note == "" || w.Shrunk == "" || w.Shrunks != 1 {
		t.Errorf("header note %q, shrunk tab's note %q (%d of them): want both, the second on the shrunk tab only", w.Note, w.Shrunk, w.Shrunks)
	}
	var v invariants.Violation
	for _, x := range sh.Result.Violations {
		if x.Invariant == sh.Invariant {
			v = x
			break
		}
	}
	want, ok := l.ViolationText(v)
	if !ok || !strings.HasSuffix(want, w.Msg) || w.Msg == "" || !strings.HasPrefix(w.Option, v.Invariant) {
		t.Errorf("the banner says %q (option %q), want the end of %q", w.Msg, w.Option, want)
	}
	switch {
	case l == PtBR && (w.Orig != v.String() || want == v.String()):
		t.Errorf("the English original is %q, want %q beside the Portuguese %q", w.Orig, v.String(), want)
	case l == En && w.Orig != "":
		t.Errorf("an English page shows an original: %q", w.Orig)
	}
}

// checkTipFollows hovers a mark of the violation's job, then steps with
// → after clicking it: the tooltip moves to the new mark's line.
func checkTipFollows(t *testing.T, p *browser.Page) {
	_, sh := failing()
	p.SetViewport(t, browser.Viewport, browser.ViewportH, false)
	p.Do(t, chromedp.Click(chromedp.CSS(`[aria-controls="dtl0-panel"]`)))
	v := sh.Result.Violations[0]
	var path []int // the violation's job's events from the first it names
	for i := range sh.Result.History {
		if e := &sh.Result.History[i]; (e.Job == v.Job || e.Other == v.Job) && e.Seq >= v.Events[0] {
			path = append(path, i)
		}
	}
	x, y := point(t, p, 0, path[0])
	p.Do(t, chromedp.MouseClickXY(x, y))
	p.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	tip := `(function(){var e=document.querySelector("#dtl0 .dtl-tip");return e.hidden?"(hidden)":e.textContent})()`
	if got := browser.Eval[string](t, p, tip); got != sh.Result.Trace[path[0]] {
		t.Fatalf("hovering #%d shows %q", path[0]+1, got)
	}
	p.Do(t, chromedp.KeyEvent(kb.ArrowRight))
	sel := browser.Eval[int](t, p, "window.durasimTimelines[0].sel")
	if got := browser.Eval[string](t, p, tip); got != sh.Result.Trace[sel] || sel == path[0] {
		t.Errorf("after → selected #%d, and the tooltip shows %q, want that event's line %q", sel+1, got, sh.Result.Trace[sel])
	}
}

// checkNoBlank fits the whole run and turns idle-gap compression off: the
// view still starts at the run's first event and ends at its end, as the
// fitted view does (its small margins), with no blank before t=0.
func checkNoBlank(t *testing.T, p *browser.Page) {
	p.Do(t, chromedp.Click(chromedp.CSS("#dtl0 .dtl-fit")))
	p.Do(t, chromedp.Click(chromedp.CSS("#dtl0 .dtl-gaps")))
	got := browser.Eval[map[string]float64](t, p, `(function(){var T=window.durasimTimelines[0];T.draw();return {first:T.X(T.t0),end:T.X(T.tEnd),w:T.W,compress:T.compress?1:0}})()`)
	if got["compress"] != 0 {
		t.Fatal("the checkbox did not turn compression off")
	}
	if first, w := got["first"], got["w"]; first < -1 || first > 0.03*w || got["end"] < 0.97*w {
		t.Errorf("with idle gaps not compressed the first event is at x %.0f and the end at %.0f of %.0f px: a blank before t=0 or after the end", first, got["end"], w)
	}
	p.Do(t, chromedp.Click(chromedp.CSS("#dtl0 .dtl-gaps")))
}
