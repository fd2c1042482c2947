package reports

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The sequence diagram as SVG, drawn by this package for the report site
// (the Markdown keeps its Mermaid block): the same participants and
// arrows, one row per arrow, text as glyph outlines like the charts, so it
// needs no renderer and looks the same everywhere. The events the
// violation names are red.

// Sizes of the diagram, in points.
const (
	seqMargin = 8.0
	seqBoxH   = 20.0 // a participant's box
	seqRowH   = 19.0 // one arrow or note
	seqMinGap = 64.0 // between two lifelines
	seqText   = 8.5  // arrow and note text
	seqName   = 10.0 // participant names
	seqHead   = 5.0  // arrowhead length
)

var (
	seqInk   = color.RGBA{0x33, 0x33, 0x33, 0xff}
	seqRed   = color.RGBA{0xc6, 0x28, 0x28, 0xff}
	seqLine  = color.RGBA{0xa0, 0xa4, 0xac, 0xff}
	seqBox   = color.RGBA{0xea, 0xee, 0xf8, 0xff}
	seqNote  = color.RGBA{0xff, 0xf6, 0xd5, 0xff}
	seqNoteB = color.RGBA{0xc9, 0xb4, 0x58, 0xff}
)

// seqLayout is where everything goes: lifeline x per participant, the
// canvas size.
type seqLayout struct {
	parts  []participant
	arrows []arrow
	col    map[string]int
	x      []float64
	w, h   float64
}

func layoutSeq(arrows []arrow) *seqLayout {
	parts, arrows := lanes(arrows)
	l := &seqLayout{parts: parts, arrows: arrows, col: map[string]int{}}
	for i, p := range parts {
		l.col[p.id] = i
	}
	gaps := make([]float64, max(len(parts)-1, 0))
	for i := range gaps {
		gaps[i] = max(seqMinGap, (boxWidth(parts[i])+boxWidth(parts[i+1]))/2+10)
	}
	l.widen(gaps)
	l.x = make([]float64, len(parts))
	for i := 1; i < len(parts); i++ {
		l.x[i] = l.x[i-1] + gaps[i-1]
	}
	lo, hi := l.extent()
	for i := range l.x {
		l.x[i] += seqMargin - lo
	}
	l.w = math.Ceil(hi - lo + 2*seqMargin) // whole points: no half-covered pixel at the edge
	l.h = 2*seqMargin + seqBoxH + 6 + float64(len(arrows))*seqRowH
	return l
}

// widen makes room for each arrow's label between its two lifelines,
// short spans first, spreading what is missing over the gaps it crosses.
func (l *seqLayout) widen(gaps []float64) {
	order := make([]int, len(l.arrows))
	for i := range order {
		order[i] = i
	}
	span := func(a arrow) int { return abs(l.col[a.to] - l.col[a.from]) }
	slices.SortStableFunc(order, func(i, j int) int { return span(l.arrows[i]) - span(l.arrows[j]) })
	for _, i := range order {
		a := l.arrows[i]
		lo, hi := min(l.col[a.from], l.col[a.to]), max(l.col[a.from], l.col[a.to])
		if lo == hi {
			continue
		}
		need, have := textWidth(a.text, seqText)+24, 0.0
		for k := lo; k < hi; k++ {
			have += gaps[k]
		}
		for k := lo; k < hi && have < need; k++ {
			gaps[k] += (need - have) / float64(hi-lo)
		}
	}
}

// extent is the leftmost and rightmost point anything reaches, with the
// first lifeline at 0.
func (l *seqLayout) extent() (lo, hi float64) {
	for i, p := range l.parts {
		lo, hi = min(lo, l.x[i]-boxWidth(p)/2), max(hi, l.x[i]+boxWidth(p)/2)
	}
	for _, a := range l.arrows {
		if a.from == a.to {
			x, w := l.x[l.col[a.from]], textWidth(a.text, seqText)+12
			lo, hi = min(lo, x-w/2), max(hi, x+w/2)
		}
	}
	return lo, hi
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func boxWidth(p participant) float64 { return textWidth(p.name, seqName) + 16 }

func textWidth(s string, size float64) float64 { return textStyle(size).Width(s).Points() }

// seqSVG draws the diagram; named holds the events the violation names.
// ids prefixes the glyph ids (one page holds several SVGs).
func seqSVG(arrows []arrow, named map[uint64]bool, ids string) []byte {
	return seqCanvas(arrows, named).svg(svgOptions{inline: true, ids: ids})
}

// seqCanvas draws the diagram on a canvas.
func seqCanvas(arrows []arrow, named map[uint64]bool) *svgCanvas {
	l := layoutSeq(arrows)
	cv := newSVGCanvas(vg.Points(l.w), vg.Points(l.h))
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := seqMargin + seqBoxH
	for i, p := range l.parts {
		l.lifeline(dc, l.x[i], top)
		l.box(dc, l.x[i], p)
	}
	for r, a := range l.arrows {
		ink := color.Color(seqInk)
		if named[a.seq] {
			ink = seqRed
		}
		y := top + 6 + float64(r)*seqRowH
		if a.from == a.to {
			l.note(dc, l.x[l.col[a.from]], y, a.text, ink)
		} else {
			l.arrow(dc, l.x[l.col[a.from]], l.x[l.col[a.to]], y, a.text, ink)
		}
	}
	return cv
}

// pt is a point given from the top left (the canvas has y up).
func (l *seqLayout) pt(x, y float64) vg.Point {
	return vg.Point{X: vg.Points(x), Y: vg.Points(l.h - y)}
}

func (l *seqLayout) lifeline(dc draw.Canvas, x, top float64) {
	dc.SetColor(seqLine)
	dc.SetLineWidth(vg.Points(0.8))
	dc.SetLineDash([]vg.Length{vg.Points(3), vg.Points(3)}, 0)
	var p vg.Path
	p.Move(l.pt(x, top))
	p.Line(l.pt(x, l.h-seqMargin))
	dc.Stroke(p)
	dc.SetLineDash(nil, 0)
}

// framed fills the rectangle r and strokes its outline.
func framed(dc draw.Canvas, r vg.Path, fill, line color.Color, width float64) {
	dc.SetColor(fill)
	dc.Fill(r)
	dc.SetColor(line)
	dc.SetLineWidth(vg.Points(width))
	dc.Stroke(r)
}

func (l *seqLayout) box(dc draw.Canvas, x float64, p participant) {
	w := boxWidth(p)
	framed(dc, rect(l.pt(x-w/2, seqMargin+seqBoxH), l.pt(x+w/2, seqMargin)), seqBox, seqInk, 0.8)
	st := textStyle(seqName)
	st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
	dc.FillText(st, l.pt(x, seqMargin+seqBoxH/2), p.name)
}

func (l *seqLayout) note(dc draw.Canvas, x, y float64, text string, ink color.Color) {
	w := textWidth(text, seqText) + 12
	framed(dc, rect(l.pt(x-w/2, y+seqRowH-3), l.pt(x+w/2, y+2)), seqNote, seqNoteB, 0.6)
	st := textStyle(seqText)
	st.Color, st.XAlign, st.YAlign = ink, draw.XCenter, draw.YCenter
	dc.FillText(st, l.pt(x, y+(seqRowH-1)/2), text)
}

func (l *seqLayout) arrow(dc draw.Canvas, x0, x1, y float64, text string, ink color.Color) {
	ly := y + seqRowH - 4
	dir := 1.0
	if x1 < x0 {
		dir = -1
	}
	dc.SetColor(ink)
	dc.SetLineWidth(vg.Points(1))
	var p vg.Path
	p.Move(l.pt(x0, ly))
	p.Line(l.pt(x1-dir*seqHead, ly))
	dc.Stroke(p)
	var head vg.Path
	head.Move(l.pt(x1, ly))
	head.Line(l.pt(x1-dir*seqHead, ly-3))
	head.Line(l.pt(x1-dir*seqHead, ly+3))
	head.Close()
	dc.Fill(head)
	st := textStyle(seqText)
	st.Color, st.XAlign, st.YAlign = ink, draw.XCenter, draw.YBottom
	dc.FillText(st, l.pt((x0+x1)/2, ly-2), text)
}

func rect(a, b vg.Point) vg.Path {
	var p vg.Path
	p.Move(a)
	p.Line(vg.Point{X: b.X, Y: a.Y})
	p.Line(b)
	p.Line(vg.Point{X: a.X, Y: b.Y})
	p.Close()
	return p
}
