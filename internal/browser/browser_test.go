package browser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBlocksTheNetwork opens a page that reaches out (an image over
// HTTP, a script from another file) and logs an error: each must be
// reported, and a clean page must report nothing.
func TestBlocksTheNetwork(t *testing.T) {
	b := Start(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	clean := filepath.Join(dir, "clean.html")
	write(t, bad, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body>
<img src="http://192.0.2.1/x.png"><script src="other.js"></script>
<script>console.error("broken"); window.done = true;</script></body></html>`)
	write(t, filepath.Join(dir, "other.js"), `window.other = true;`)
	write(t, clean, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>clean</title></head><body>
<p style="font-size:40px">durasim</p><div style="width:300px;height:200px;background:#3366cc"></div>
<script>window.done = true;</script></body></html>`)
	p := b.Open(t, bad)
	if !Eval[bool](t, p, `window.done === true`) {
		t.Fatal("the bad page did not run its script")
	}
	if Eval[bool](t, p, `window.other === true`) {
		t.Error("the script from another file ran: the network was not blocked")
	}
	got := strings.Join(p.Problems(), "\n")
	for _, want := range []string{"http://192.0.2.1/x.png", "other.js", "broken"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	c := b.Open(t, clean)
	c.CheckClean(t)
	shot := filepath.Join(dir, "clean.png")
	if why := Blank(c.Screenshot(t, shot)); why != "" {
		t.Errorf("the clean page looks blank (%s): see %s", why, shot)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLayoutChecks: each layout check finds what it looks for on a page
// built to have it, at a phone's width, and nothing on a page without it.
func TestLayoutChecks(t *testing.T) {
	b := Start(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	write(t, bad, `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>bad</title>
<style>body{margin:8px;font:16px/1.5 sans-serif} .over{position:relative;top:-36px;left:10px} .s{overflow-x:auto}</style></head><body>
<p id="one">first line of text</p><p class="over">overlapping line</p>
<details><summary>a closed details</summary><p class="over">what it hides is not shown</p></details>
<div id="wide" style="width:600px;background:#eee">a box wider than a phone</div>
<div class="s" id="unmarked"><div style="width:900px">a sideways scroller with no mark</div></div>
<div><div class="s" id="nocue" data-scrollbox><div style="width:900px">a marked scroller with no cue</div></div></div>
<div><p data-scroll-cue>scroll sideways</p><div class="s" id="good" data-scrollbox><div style="width:900px">a marked scroller with its cue</div></div></div>
<div style="overflow:hidden;width:200px"><div style="width:900px">clipped: its parent fits</div></div>
<svg width="200" height="40"><g data-text="drawn twice"><rect x="10" y="10" width="80" height="12"/></g><g data-text="on top"><rect x="50" y="14" width="80" height="12"/></g></svg>
</body></html>`)
	p := b.Open(t, bad)
	p.SetViewport(t, Phone, PhoneH, true)
	o := CheckOverflow(t, p)
	got := strings.Join(o.Problems(), "\n")
	for _, want := range []string{"the page is", "wider than the viewport: div#wide", "not a marked scroll box (data-scrollbox): div#unmarked.s", "no visible cue (data-scroll-cue): div#nocue.s"} {
		if !strings.Contains(got, want) {
			t.Errorf("overflow problems lack %q:\n%s", want, got)
		}
	}
	for _, wrong := range []string{"#good", "clipped"} {
		if strings.Contains(got, wrong) {
			t.Errorf("overflow problems name %s, which is fine:\n%s", wrong, got)
		}
	}
	if o.Boxes != 2 || o.Scrolling != 2 {
		t.Errorf("%d marked scroll boxes, %d scrolling; want 2 and 2", o.Boxes, o.Scrolling)
	}
	pairs := Overlapping(TextBoxes(t, p, ""), 1)
	if len(pairs) != 1 || !strings.Contains(pairs[0][0].What+pairs[0][1].What, "overlapping line") {
		t.Errorf("overlapping text: %v, want the one pair", pairs)
	}
	pairs = Overlapping(TextBoxes(t, p, "svg [data-text]"), 1)
	if len(pairs) != 2 || !strings.Contains(pairs[0][0].What+pairs[0][1].What+pairs[1][0].What+pairs[1][1].What, "drawn twice") {
		t.Errorf("overlapping text with the SVG's: %v, want its pair too", pairs)
	}

	clean := filepath.Join(dir, "clean.html")
	write(t, clean, `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>clean</title>
<style>body{margin:8px;font:16px/1.5 sans-serif} .s{overflow-x:auto}</style></head><body>
<h1>A title that is long enough to wrap on a phone's narrow screen</h1><p>A paragraph, <b>bold</b> and <code>code</code>, on several lines when the screen is narrow enough for it to wrap.</p>
<div><p data-scroll-cue>scroll sideways</p><div class="s" data-scrollbox><table><tr><td>a wide table cell that goes on and on</td><td>another wide cell of the table</td><td>a third one</td></tr></table></div></div>
</body></html>`)
	c := b.Open(t, clean)
	c.SetViewport(t, Phone, PhoneH, true)
	if boxes := CheckLayout(t, c, "clean.html", ""); len(boxes) < 5 {
		t.Errorf("%d text boxes on the clean page, want its lines", len(boxes))
	}
	shot := filepath.Join(dir, "phone.png")
	img := c.Screenshot(t, shot)
	if w := img.Bounds().Dx(); w != Phone {
		t.Errorf("the phone's screenshot is %d px wide, want %d", w, Phone)
	}
}

// TestDrawnProblems: text a canvas cuts off, text on a mark and text on
// text are each found; text beside the marks inside its canvas is not.
func TestDrawnProblems(t *testing.T) {
	canvas := Box{X: 0, Y: 0, W: 100, H: 40, What: "canvas"}
	mark := Box{X: 50, Y: 10, W: 10, H: 14, What: "#3"}
	ok := Drawn{Canvas: canvas, Text: []Box{{X: 5, Y: 12, W: 40, H: 12, What: "j1 f1 a1"}}, Marks: []Box{mark}}
	if got := DrawnProblems(ok, Drawn{Canvas: Box{Y: 50, W: 100, H: 20}, Text: []Box{{X: 10, Y: 52, W: 30, H: 12, What: "quiesce"}}}); len(got) != 0 {
		t.Errorf("a clean drawing has problems: %q", got)
	}
	for _, c := range []struct {
		text Box
		want string
	}{
		{Box{X: 80, Y: 12, W: 40, H: 12, What: "cut"}, "cut off"},
		{Box{X: 45, Y: 12, W: 10, H: 12, What: "on"}, "lies on the mark #3"},
		{Box{X: 20, Y: 14, W: 20, H: 12, What: "over"}, "overlaps drawn text"},
	} {
		bad := ok
		bad.Text = append(slices.Clone(ok.Text), c.text)
		if got := strings.Join(DrawnProblems(bad), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", c.text.What, got, c.want)
		}
	}
}
