package browser

import (
	_ "embed"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// The layout checks: what a reader would see go wrong on a page (text on
// text, a page wider than the phone it is read on), measured in the page
// itself rather than guessed from its markup.

//go:embed layout.js
var layoutJS string

// Phone is the viewport of a common phone, in CSS pixels (an iPhone 12 to
// 15 held upright).
const Phone, PhoneH = 390, 844

// The marks of a scroll box, for pages that let a wide element (a table, a
// diagram) scroll sideways inside the page rather than widen it: the box
// carries ScrollBoxAttr, and its cue — an element that says the box
// scrolls, outside the box in the box's parent, so that it does not
// scroll away — carries ScrollCueAttr.
const (
	ScrollBoxAttr = "data-scrollbox"
	ScrollCueAttr = "data-scroll-cue"
)

// SetViewport resizes the tab to w×h CSS pixels; mobile emulates a phone
// (its page width follows the page's viewport meta tag, as a phone's
// does). Screenshots then have that size.
func (p *Page) SetViewport(tb testing.TB, w, h int, mobile bool) {
	tb.Helper()
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	p.Do(tb, chromedp.EmulateViewport(int64(w), int64(h), opts...))
	// A resize reaches the page's listeners before the next frame.
	Eval[bool](tb, p, `new Promise(function(r){requestAnimationFrame(function(){requestAnimationFrame(function(){r(true)})})})`)
}

// Box is a rectangle in the page, in CSS pixels from the viewport's top
// left corner, and what it holds.
type Box struct {
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	W    float64 `json:"w"`
	H    float64 `json:"h"`
	What string  `json:"what"`
}

// Overlaps reports whether a and b share more than tol pixels each way.
func (a Box) Overlaps(b Box, tol float64) bool {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	return w > tol && h > tol
}

// Within reports whether a lies inside b, give or take tol pixels.
func (a Box) Within(b Box, tol float64) bool {
	return a.X >= b.X-tol && a.Y >= b.Y-tol && a.X+a.W <= b.X+b.W+tol && a.Y+a.H <= b.Y+b.H+tol
}

func (a Box) String() string {
	return fmt.Sprintf("%s at (%.0f, %.0f) %.0f×%.0f", a.What, a.X, a.Y, a.W, a.H)
}

// Overlapping lists the pairs of boxes that overlap by more than tol
// pixels each way (sorted by top edge, each box against those that start
// above its bottom).
func Overlapping(boxes []Box, tol float64) [][2]Box {
	s := slices.Clone(boxes)
	slices.SortStableFunc(s, func(a, b Box) int {
		switch {
		case a.Y < b.Y:
			return -1
		case a.Y > b.Y:
			return 1
		}
		return 0
	})
	var out [][2]Box
	for i, a := range s {
		for _, b := range s[i+1:] {
			if b.Y >= a.Y+a.H-tol {
				break
			}
			if a.Overlaps(b, tol) {
				out = append(out, [2]Box{a, b})
			}
		}
	}
	return out
}

// layout evaluates expr with the page's layout script defined (once per
// page: the script keeps what it defined).
func layout[T any](tb testing.TB, p *Page, expr string) T {
	tb.Helper()
	if !Eval[bool](tb, p, "!!window.durasimLayout") {
		Eval[bool](tb, p, layoutJS+"\ntrue")
	}
	return Eval[T](tb, p, expr)
}

// TextBoxes is the box of every line of text a reader sees on the page:
// each text node's line fragments, and the box of each element extra
// selects (a CSS selector for text drawn otherwise, as SVG outlines; ""
// for none), each cut to what its scrolling or clipping ancestors show.
// Hidden elements, closed <details>, scripts and form controls' options
// have none.
func TextBoxes(tb testing.TB, p *Page, extra string) []Box {
	tb.Helper()
	return layout[[]Box](tb, p, fmt.Sprintf("window.durasimLayout.textBoxes(%q)", extra))
}

// Overflow is what sticks out of the viewport sideways.
type Overflow struct {
	PageWidth     float64  `json:"pageWidth"`     // the document's scroll width
	ViewportWidth float64  `json:"viewportWidth"` // the viewport's width
	Wide          []string `json:"wide"`          // elements reaching past an edge of the viewport outside a marked scroll box (the outermost of each)
	Unmarked      []string `json:"unmarked"`      // elements that scroll sideways without ScrollBoxAttr
	NoCue         []string `json:"noCue"`         // marked scroll boxes that scroll sideways with no visible cue
	Boxes         int      `json:"boxes"`         // marked scroll boxes on the page
	Scrolling     int      `json:"scrolling"`     // those that scroll sideways at this width
}

// Problems lists what is wrong: the page scrolls sideways, an element is
// wider than the viewport, a scroll box is unmarked or has no cue.
func (o Overflow) Problems() []string {
	var out []string
	if o.PageWidth > o.ViewportWidth+0.5 {
		out = append(out, fmt.Sprintf("the page is %.0f px wide in a %.0f px viewport", o.PageWidth, o.ViewportWidth))
	}
	for _, s := range o.Wide {
		out = append(out, "wider than the viewport: "+s)
	}
	for _, s := range o.Unmarked {
		out = append(out, "scrolls sideways but is not a marked scroll box ("+ScrollBoxAttr+"): "+s)
	}
	for _, s := range o.NoCue {
		out = append(out, "a scroll box scrolls sideways with no visible cue ("+ScrollCueAttr+"): "+s)
	}
	return out
}

// CheckOverflow measures what sticks out of the viewport.
func CheckOverflow(tb testing.TB, p *Page) Overflow {
	tb.Helper()
	return layout[Overflow](tb, p, "window.durasimLayout.overflow()")
}

// CheckLayout fails the test for every overflow problem of the page and
// every two lines of text that overlap (extra as for [TextBoxes]); what
// names the page in the messages. It returns the text boxes it measured.
func CheckLayout(tb testing.TB, p *Page, what, extra string) []Box {
	tb.Helper()
	for _, msg := range CheckOverflow(tb, p).Problems() {
		tb.Errorf("%s: %s", what, msg)
	}
	boxes := TextBoxes(tb, p, extra)
	pairs := Overlapping(boxes, 1)
	for i, pr := range pairs {
		if i == 10 {
			tb.Errorf("%s: %d more pairs of overlapping text", what, len(pairs)-i)
			break
		}
		tb.Errorf("%s: text overlaps text:\n\t%s\n\t%s", what, pr[0], pr[1])
	}
	return boxes
}

// Drawn is what a canvas drew, as the page's script reports it: the
// canvas's box, and the boxes of the text and of the marks it drew on it,
// in the same coordinates as [Box].
type Drawn struct {
	Canvas Box   `json:"canvas"`
	Text   []Box `json:"text"`
	Marks  []Box `json:"marks"`
}

// CheckDrawn fails the test for every problem [DrawnProblems] finds;
// what names the canvases in the messages.
func CheckDrawn(tb testing.TB, what string, ds ...Drawn) {
	tb.Helper()
	for _, p := range DrawnProblems(ds...) {
		tb.Errorf("%s: %s", what, p)
	}
}

// DrawnProblems lists every text a canvas drew outside it (cut off), on
// one of its marks, or on other text of any of the canvases.
func DrawnProblems(ds ...Drawn) []string {
	var out []string
	var all []Box
	for _, d := range ds {
		for _, t := range d.Text {
			if !t.Within(d.Canvas, 1) {
				out = append(out, fmt.Sprintf("%s is cut off by its canvas (%s)", t, d.Canvas))
			}
			for _, m := range d.Marks {
				if t.Overlaps(m, 0.5) {
					out = append(out, fmt.Sprintf("%s lies on the mark %s", t, m))
				}
			}
		}
		all = append(all, d.Text...)
	}
	for _, pr := range Overlapping(all, 0.5) {
		out = append(out, fmt.Sprintf("drawn text overlaps drawn text: %s and %s", pr[0], pr[1]))
	}
	return out
}
