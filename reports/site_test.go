package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/internal/browser"
	"github.com/durasim/durasim/sim"
)

// siteFiles is the generated site, by path.
func siteFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range generated(t) {
		if strings.HasPrefix(f.Path, "site/") {
			out[f.Path] = f.Data
		}
	}
	return out
}

var (
	hrefRe = regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	svgRe  = regexp.MustCompile(`(?s)<svg .*?</svg>`)
	// remoteRe is an attribute that would fetch (xmlns names are not
	// fetched, and a link is followed only when a reader clicks it: the
	// check runs on the page with its <a> tags removed).
	remoteRe = regexp.MustCompile(`(?:src|href|action|data)="(?:https?:)?//`)
	anchorRe = regexp.MustCompile(`<a\s[^>]*>`)
)

// TestSitePages holds each page to its Markdown report: every chart
// inline, every Mermaid block an SVG diagram, every counterexample a
// timeline, nothing left of the Markdown's syntax, links that resolve.
func TestSitePages(t *testing.T) {
	site := siteFiles(t)
	if _, ok := site["site/index.html"]; !ok {
		t.Fatal("no site/index.html")
	}
	for _, f := range generated(t) {
		l, name, ok := strings.Cut(strings.TrimSuffix(f.Path, ".md"), "/")
		if !ok || !strings.HasSuffix(f.Path, ".md") || strings.Contains(name, "/") {
			continue
		}
		pagePath := "site/" + l + "/" + name + ".html"
		page, ok := site[pagePath]
		if !ok {
			t.Errorf("%s has no page %s", f.Path, pagePath)
			continue
		}
		checkPage(t, pagePath, string(f.Data), string(page), site)
	}
	for p, page := range site {
		for _, bad := range []string{"```", "](charts/", "durasim:block"} {
			if bytes.Contains(page, []byte(bad)) {
				t.Errorf("%s holds %q", p, bad)
			}
		}
		if m := remoteRe.Find(anchorRe.ReplaceAll(page, nil)); m != nil {
			t.Errorf("%s refers to the network: %s", p, m)
		}
	}
}

func checkPage(t *testing.T, p, md, page string, site map[string][]byte) {
	t.Helper()
	counts := []struct {
		what      string
		md, html  string
		wantEqual bool
	}{
		{"charts", "![", `<figure class="chart">`, true},
		{"sequence diagrams", "```mermaid", `<div class="seq" data-scrollbox`, true},
	}
	for _, c := range counts {
		if m, h := strings.Count(md, c.md), strings.Count(page, c.html); m != h {
			t.Errorf("%s: %d %s, its Markdown has %d", p, h, c.what, m)
		}
	}
	counter := strings.Count(md, "## Contraexemplo mínimo: ") + strings.Count(md, "## Minimal counterexample: ")
	if got := strings.Count(page, `<div class="dtl" id=`); got != counter {
		t.Errorf("%s: %d timelines for %d counterexamples", p, got, counter)
	}
	if counter > 0 && !strings.Contains(page, "window.durasimTimelines") {
		t.Errorf("%s: timelines without their script", p)
	}
	for _, svg := range svgRe.FindAllString(page, -1) {
		if err := wellFormed(svg); err != nil {
			t.Errorf("%s: an inline SVG is not well-formed: %v", p, err)
			break
		}
	}
	for _, m := range hrefRe.FindAllStringSubmatch(page, -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if target == "" || strings.HasPrefix(target, "https://") {
			continue
		}
		if _, ok := site[path.Join(path.Dir(p), target)]; !ok {
			t.Errorf("%s links %s, which the site does not have", p, m[1])
		}
	}
	if left := markdownLeft(page); len(left) > 0 {
		t.Errorf("%s: Markdown left as text: %q", p, left)
	}
}

// markdownRe is Markdown syntax as a reader would see it left in a page's
// text: a heading's #, emphasis, a code span's backticks, a link or an
// image, an escaped character, a table's pipe.
var markdownRe = regexp.MustCompile("(?m)^\\s*#{1,6} +\\S|\\*\\*|__|`|!?\\[[^\\]]*\\]\\(|\\\\[\\[\\]|*_`#]|(?:^|\\s)\\*[^*\\s][^*]*\\*(?:\\s|$)|(?:^|\\s)_[^_\\s][^_]*_(?:\\s|$)|^\\|.*\\|$")

// markdownLeft lists what of the page's text (outside code, pre, SVG,
// scripts and styles: text a reader sees as prose) is Markdown syntax.
func markdownLeft(page string) []string {
	text := html.UnescapeString(tagRe.ReplaceAllString(codeRe2.ReplaceAllString(stripBlocks(page), " "), " "))
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if m := markdownRe.FindString(line); m != "" {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

var (
	tagRe   = regexp.MustCompile(`<[^>]*>`)
	codeRe2 = regexp.MustCompile(`(?s)<code[^>]*>.*?</code>`)
)

// TestMarkdownLeft: the check finds Markdown a renderer missed, and
// nothing in converted text.
func TestMarkdownLeft(t *testing.T) {
	for _, bad := range []string{"<p>see [#1302](https://x/1302).</p>", "<p>two ``</p>", "<p>**bold**</p>", "<td>a \\[b]</td>", "<p>*italic*</p>", "<h2>x</h2>\n## y"} {
		if len(markdownLeft(bad)) == 0 {
			t.Errorf("%q: no Markdown found", bad)
		}
	}
	good, err := markdownHTML("# T\n\nSome **bold**, *italic*, `code` and [a link](x.md); a \\[bracket], 2 * 3 * 4.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", En, false)
	if err != nil {
		t.Fatal(err)
	}
	if left := markdownLeft(good); len(left) > 0 {
		t.Errorf("converted Markdown holds %q:\n%s", left, good)
	}
}

// stripBlocks removes what is not converted Markdown: styles, scripts,
// SVG and pre blocks.
func stripBlocks(page string) string {
	for _, re := range []*regexp.Regexp{regexp.MustCompile(`(?s)<style>.*?</style>`), regexp.MustCompile(`(?s)<script.*?</script>`), svgRe, regexp.MustCompile(`(?s)<pre>.*?</pre>`)} {
		page = re.ReplaceAllString(page, "")
	}
	return page
}

func wellFormed(svg string) error {
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestSiteTwice renders the site twice from the same scenarios: the same
// bytes (cmd/durasim's TestReportTwice writes everything twice from two
// builds).
func TestSiteTwice(t *testing.T) {
	generated(t)
	a, err := Site(genReports, Langs(), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Site(genReports, Langs(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) || len(a) != 1+len(Langs())*len(genReports) {
		t.Fatalf("%d then %d files", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between two renderings", a[i].Path)
		}
	}
}

// TestSequenceDiagramsRender renders every sequence diagram with
// rsvg-convert: nothing may be drawn outside its canvas (a label cut off).
func TestSequenceDiagramsRender(t *testing.T) {
	bin, err := exec.LookPath("rsvg-convert")
	if err != nil {
		t.Fatal("rsvg-convert not found: install Debian's librsvg2-bin (bash .ci/run does)")
	}
	n := 0
	for _, b := range built(t) {
		for i, c := range b.Counter {
			if c == nil {
				continue
			}
			arrows := make([]arrow, len(c.Events))
			for k := range c.Events {
				arrows[k] = eventArrow(&c.Events[k])
			}
			cv := seqCanvas(arrows, nil)
			n++
			if outside(rasterize(t, bin, cv, nil), chartFile{canvas: cv}) {
				t.Errorf("%s, arm %s: the sequence diagram draws outside its canvas", b.Scenario.Name, b.Outcomes[i].Arm.Name())
			}
		}
	}
	if rv := river(t); rv.Pattern != nil {
		cv := seqCanvas(rv.Pattern.arrows(rv.Documented), nil)
		n++
		if outside(rasterize(t, bin, cv, nil), chartFile{canvas: cv}) {
			t.Errorf("%s: the sequence diagram draws outside its canvas", RiverName)
		}
	}
	if n == 0 {
		t.Fatal("no diagram rendered")
	}
}

// TestSiteInBrowser opens every page of the site in Chromium with the
// network blocked, on a desktop (1280 px) and on a phone (390 px): no
// console error, no request outside the page; no element wider than the
// viewport but in a marked scroll box with a visible cue, no two lines
// of text overlapping (the diagrams' and charts' text included, and the
// timelines' canvas labels against their marks); sequence diagrams that
// fit the desktop and, on the phone, open on the lifelines their
// violation's events join; the key sentence and the timeline banner in
// the page's language, the English original a click away; on each
// counterexample's timeline the lanes and marks of its trace and the
// critical path behind "only the jobs involved"; and the index's
// verdicts in view on the phone. Screenshots of some of them go to
// $DURASIM_SCREENSHOTS when set.
func TestSiteInBrowser(t *testing.T) {
	dir := t.TempDir()
	var files []File
	for p, data := range siteFiles(t) {
		files = append(files, File{Path: p, Data: data})
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("DURASIM_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	b := browser.Start(t)
	var p *browser.Page
	generated(t)
	for _, vp := range []struct {
		name   string
		w, h   int
		mobile bool
	}{{"desktop", browser.Viewport, browser.ViewportH, false}, {"phone", browser.Phone, browser.PhoneH, true}} {
		pages := 0
		for _, r := range genReports {
			for _, l := range Langs() {
				rel := string(l) + "/" + r.Name() + ".html"
				file := filepath.Join(dir, "site", rel)
				if p == nil {
					p = b.Open(t, file)
				}
				p.SetViewport(t, vp.w, vp.h, vp.mobile)
				p.Load(t, file)
				what := fmt.Sprintf("%s on a %s (%d px)", rel, vp.name, vp.w)
				if bt, ok := r.(*Built); ok {
					if !vp.mobile {
						checkTimelines(t, p, bt)
					}
					checkKeySentences(t, p, what, l, bt)
				}
				browser.CheckLayout(t, p, what, "svg [data-text]")
				checkDiagrams(t, p, what, vp.mobile)
				checkTimelineLayout(t, p, what)
				p.CheckClean(t)
				pages++
				shot := func(name, sel string) {
					screenshot(t, p, filepath.Join(shots, fmt.Sprintf("site-%s-%s-%s.png", vp.name, l, name)), sel)
				}
				switch {
				case l == En && (r.Name() == "opening-incident" || r.Name() == "zombie-worker") && !vp.mobile:
					shot(r.Name(), `document.querySelector(".dtl")`)
				case l == En && r.Name() == RiverName:
					shot(r.Name(), `document.querySelector(".seq")`)
				case l == PtBR && r.Name() == "opening-incident":
					shot(r.Name()+"-key-sentence", `document.querySelector("blockquote code").closest("blockquote")`)
					shot(r.Name()+"-diagram", `document.querySelector(".seq").parentElement`)
					shot(r.Name()+"-timeline", `document.querySelector(".dtl-violation")`)
				}
			}
		}
		p.Load(t, filepath.Join(dir, "site", "index.html"))
		what := fmt.Sprintf("index.html on a %s (%d px)", vp.name, vp.w)
		p.CheckClean(t)
		browser.CheckLayout(t, p, what, "")
		checkVerdictsInView(t, p, what)
		screenshot(t, p, filepath.Join(shots, "site-"+vp.name+"-index.png"), "")
		if n := browser.Eval[int](t, p, `document.querySelectorAll("a[href$='.html']").length`); n != pages {
			t.Errorf("the index links %d pages, the site has %d", n, pages)
		}
		t.Logf("%s: %d pages and the index checked", vp.name, pages)
	}
	t.Logf("screenshots in %s", shots)
}

// diagramView is a sequence diagram's box in the page and what of it
// shows: whether it scrolls, the box, and the boxes of the red arrows
// (the events the violation names) and of their labels.
type diagramView struct {
	Scrolls bool          `json:"scrolls"`
	Box     browser.Box   `json:"box"`
	Arrows  []browser.Box `json:"arrows"`
	Labels  []browser.Box `json:"labels"`
	Focus   bool          `json:"focus"`
}

// checkDiagrams: on a desktop every sequence diagram fits its page; on a
// phone one that scrolls has opened on its red arrows: each lies in the
// box's visible part (their span, when it is wider than the box, starts
// in it), and each red label shows at least in part.
func checkDiagrams(t *testing.T, p *browser.Page, what string, phone bool) {
	t.Helper()
	views := browser.Eval[[]diagramView](t, p, `Array.from(document.querySelectorAll(".seq[data-scrollbox]")).map(function(el){
		function box(e, what){var r=e.getBoundingClientRect();return {x:r.left,y:r.top,w:r.width,h:r.height,what:what}}
		return {scrolls: el.scrollWidth > el.clientWidth + 1, box: box(el, "diagram"), focus: el.hasAttribute("data-focus"),
			arrows: Array.from(el.querySelectorAll('path[stroke="#C62828"]')).map(function(e){return box(e, "arrow")}),
			labels: Array.from(el.querySelectorAll('g[data-text][fill="#C62828"]')).map(function(e){return box(e, e.getAttribute("data-text"))})}
	})`)
	for k, v := range views {
		switch {
		case !phone && v.Scrolls:
			t.Errorf("%s: sequence diagram %d is wider than the page (%.0f px box)", what, k+1, v.Box.W)
		case !phone || !v.Scrolls || len(v.Arrows) == 0:
		case !v.Focus:
			t.Errorf("%s: sequence diagram %d names events but has no data-focus", what, k+1)
		default:
			lo, hi := v.Arrows[0].X, v.Arrows[0].X+v.Arrows[0].W
			for _, a := range v.Arrows {
				lo, hi = min(lo, a.X), max(hi, a.X+a.W)
			}
			in := func(x float64) bool { return x >= v.Box.X-1 && x <= v.Box.X+v.Box.W+1 }
			if !in(lo) || hi-lo <= v.Box.W && !in(hi) {
				t.Errorf("%s: sequence diagram %d opens on x %.0f to %.0f; its red arrows span %.0f to %.0f", what, k+1, v.Box.X, v.Box.X+v.Box.W, lo, hi)
			}
			for _, lb := range v.Labels {
				if lb.X > v.Box.X+v.Box.W || lb.X+lb.W < v.Box.X {
					t.Errorf("%s: sequence diagram %d opens with the red label %q out of view", what, k+1, lb.What)
				}
			}
		}
	}
}

// checkTimelineLayout: in every timeline of the page, no text the
// canvases drew is cut off, lies on a mark or on other text.
func checkTimelineLayout(t *testing.T, p *browser.Page, what string) {
	t.Helper()
	n := browser.Eval[int](t, p, "window.durasimTimelines ? window.durasimTimelines.length : 0")
	for k := range n {
		drawn := browser.Eval[[]browser.Drawn](t, p, fmt.Sprintf("window.durasimTimelines[%d].layout()", k))
		browser.CheckDrawn(t, fmt.Sprintf("%s, timeline %d", what, k+1), drawn...)
	}
}

// checkKeySentences: each counterexample's key sentence, the violation,
// is in the page's language, in the report's quote and in its timeline's
// banner; in Portuguese the English original is in a closed <details>
// beside each.
func checkKeySentences(t *testing.T, p *browser.Page, what string, l Lang, bt *Built) {
	t.Helper()
	type seen struct {
		Quotes  []string `json:"quotes"`
		Origs   []string `json:"origs"`
		Banners []string `json:"banners"`
		Open    int      `json:"open"`
	}
	got := browser.Eval[seen](t, p, `(function(){
		function texts(sel){return Array.from(document.querySelectorAll(sel)).map(function(e){return e.textContent})}
		return {quotes: texts("main > blockquote > p > code"), origs: texts("main > blockquote details code, main li details code"),
			banners: texts(".dtl-violation .dtl-msg"), open: document.querySelectorAll("main details[open]").length}})()`)
	k := 0
	for i, c := range bt.Counter {
		if c == nil {
			continue
		}
		want := l.violation(c.Violation)
		if l == PtBR && want == c.Violation.String() {
			t.Errorf("%s: arm %s's violation has no Portuguese: %q", what, bt.Outcomes[i].Arm.Name(), want)
		}
		if !slices.Contains(got.Quotes, want) {
			t.Errorf("%s: arm %s's key sentence %q is not quoted (quotes: %q)", what, bt.Outcomes[i].Arm.Name(), want, got.Quotes)
		}
		if l == PtBR && !slices.Contains(got.Origs, c.Violation.String()) {
			t.Errorf("%s: arm %s's English original %q is not a click away", what, bt.Outcomes[i].Arm.Name(), c.Violation.String())
		}
		if k < len(got.Banners) && !strings.HasSuffix(want, got.Banners[k]) {
			t.Errorf("%s: timeline %d's banner says %q, want the end of %q", what, k+1, got.Banners[k], want)
		}
		k++
	}
	if len(got.Banners) != k {
		t.Errorf("%s: %d timeline banners for %d counterexamples", what, len(got.Banners), k)
	}
	if got.Open > 0 {
		t.Errorf("%s: %d <details> open at load: the English originals are a click away, not in the way", what, got.Open)
	}
}

// checkVerdictsInView: every verdict of the index (its last column) is
// on screen without scrolling sideways.
func checkVerdictsInView(t *testing.T, p *browser.Page, what string) {
	t.Helper()
	cells := browser.Eval[[]browser.Box](t, p, `Array.from(document.querySelectorAll("table tbody tr td:last-child")).map(function(e){var r=e.getBoundingClientRect();return {x:r.left,y:r.top,w:r.width,h:r.height,what:e.textContent}})`)
	vw := browser.Eval[float64](t, p, "document.documentElement.clientWidth")
	if len(cells) == 0 {
		t.Fatalf("%s: no verdict", what)
	}
	for _, c := range cells {
		if c.X < 0 || c.X+c.W > vw+0.5 || c.W < 10 {
			t.Errorf("%s: the verdict %s is out of view (viewport %.0f px)", what, c, vw)
		}
	}
}

// screenshot scrolls to the element scroll selects (none: the top) and
// checks the 1280x800 screenshot is not blank.
func screenshot(t *testing.T, p *browser.Page, file, scroll string) {
	t.Helper()
	if scroll != "" {
		browser.Eval[bool](t, p, fmt.Sprintf(`(%s.scrollIntoView(), true)`, scroll))
	}
	if why := browser.Blank(p.Screenshot(t, file)); why != "" {
		t.Errorf("%s looks blank: %s", file, why)
	}
}

type tlInfo struct {
	Events     int `json:"events"`
	Shown      int `json:"shown"`
	Lanes      int `json:"laneLabels"`
	Marks      int `json:"marks"`
	Violation  int `json:"violation"`
	LinesShown int `json:"-"`
}

// checkTimelines: one timeline per counterexample, each holding its
// shrunk run's trace, its lanes, its violation, and its critical path.
func checkTimelines(t *testing.T, p *browser.Page, bt *Built) {
	t.Helper()
	k := 0
	for i, c := range bt.Counter {
		if c == nil {
			continue
		}
		res := c.Shrunk.Result
		in := browser.Eval[tlInfo](t, p, fmt.Sprintf("window.durasimTimelines[%d].info()", k))
		if in.Events != len(res.Trace) || in.Shown != len(res.Trace) || in.Marks == 0 || in.Violation < 0 {
			t.Errorf("%s, arm %s: timeline %+v for %d trace lines", bt.Scenario.Name, bt.Outcomes[i].Arm.Name(), in, len(res.Trace))
		}
		if lanes := len(wantLanes(res)); in.Lanes != lanes {
			t.Errorf("%s, arm %s: %d lanes, the trace has %d actors", bt.Scenario.Name, bt.Outcomes[i].Arm.Name(), in.Lanes, lanes)
		}
		browser.Eval[bool](t, p, fmt.Sprintf(`(document.querySelectorAll(".dtl-involved")[%d].click(), true)`, k))
		got := browser.Eval[[]string](t, p, fmt.Sprintf(`(function(){var T=window.durasimTimelines[%d];return T.shownIndices().map(function(i){return T.line(i)})})()`, k))
		if want := sim.Timeline(res, c.Shrunk.Invariant); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s, arm %s: only the jobs involved shows %d events, the critical path has %d", bt.Scenario.Name, bt.Outcomes[i].Arm.Name(), len(got), len(want))
		}
		k++
	}
	if n := browser.Eval[int](t, p, "window.durasimTimelines ? window.durasimTimelines.length : 0"); n != k {
		t.Errorf("%s: %d timelines started, %d counterexamples", bt.Scenario.Name, n, k)
	}
}

// wantLanes is the set of lanes a history needs (as timeline draws them).
func wantLanes(res *sim.Result) map[string]bool {
	out := map[string]bool{}
	for i := range res.History {
		e := &res.History[i]
		name := e.Actor.String()
		switch {
		case e.Actor.Role.String() == "client":
			name = "clients"
		case e.Kind.String() == "breaker":
			name = "breaker"
		case e.Actor.Role.String() == "-":
			name = "sim"
		}
		out[name] = true
	}
	return out
}
