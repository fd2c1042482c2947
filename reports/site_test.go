package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
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
	// remoteRe is an attribute that would fetch (xmlns names are not fetched).
	remoteRe = regexp.MustCompile(`(?:src|href|action|data)="(?:https?:)?//`)
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
		if m := remoteRe.Find(page); m != nil {
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
		{"sequence diagrams", "```mermaid", `<div class="seq">`, true},
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
		if target == "" {
			continue
		}
		if _, ok := site[path.Join(path.Dir(p), target)]; !ok {
			t.Errorf("%s links %s, which the site does not have", p, m[1])
		}
	}
	for _, h := range []string{"##", "**"} { // Markdown left unconverted
		for _, line := range strings.Split(stripBlocks(page), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), h) {
				t.Errorf("%s: Markdown left as text: %q", p, line)
			}
		}
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
// network blocked: no console error, no request outside the page, a
// screenshot that is not blank, and on each counterexample's timeline the
// lanes and marks of its trace and the critical path behind "only the
// jobs involved".
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
	}
	b := browser.Start(t)
	var p *browser.Page
	pages := 0
	generated(t)
	for _, r := range genReports {
		for _, l := range Langs() {
			file := filepath.Join(dir, "site", string(l), r.Name()+".html")
			if p == nil {
				p = b.Open(t, file)
			} else {
				p.Load(t, file)
			}
			if bt, ok := r.(*Built); ok {
				checkTimelines(t, p, bt)
			}
			p.CheckClean(t)
			pages++
			if l == En && (r.Name() == "opening-incident" || r.Name() == "zombie-worker") {
				screenshot(t, p, filepath.Join(shots, "site-"+r.Name()+".png"), `document.querySelector(".dtl")`)
			}
			if l == En && r.Name() == RiverName {
				screenshot(t, p, filepath.Join(shots, "site-"+r.Name()+".png"), `document.querySelector(".seq")`)
			}
		}
	}
	p.Load(t, filepath.Join(dir, "site", "index.html"))
	index := p
	index.CheckClean(t)
	screenshot(t, index, filepath.Join(shots, "site-index.png"), "")
	if n := browser.Eval[int](t, index, `document.querySelectorAll("a[href$='.html']").length`); n != pages {
		t.Errorf("the index links %d pages, the site has %d", n, pages)
	}
	t.Logf("%d pages and the index checked; screenshots in %s", pages, shots)
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
