package reports

import (
	"image/color"
	"math"

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
	seqInk    = color.RGBA{0x33, 0x33, 0x33, 0xff}
	seqRed    = color.RGBA{0xc6, 0x28, 0x28, 0xff}
	seqLine   = color.RGBA{0xa0, 0xa4, 0xac, 0xff}
	seqBox    = color.RGBA{0xea, 0xee, 0xf8, 0xff}
	seqNote   = color.RGBA{0xff, 0xf6, 0xd5, 0xff}
	seqNoteB  = color.RGBA{0xc9, 0xb4, 0x58, 0xff}
	seqGround = color.NRGBA{0xff, 0xff, 0xff, 0xe6} // under a label that crosses lifelines
)

// seqLayout is where everything goes: lifeline x per participant, each
// row's label, the canvas size.
type seqLayout struct {
	parts  []participant
	arrows []arrow
	col    map[string]int
	x      []float64
	labels []float64 // each row's label's centre
	w, h   float64
}

// layoutSeq places the lifelines as close as their boxes allow and each
// label centred over its arrow (or on its note's lifeline), moved sideways
// only to stay on the canvas. A label wider than its arrow reaches over
// the lifelines beside it on a background of its own: one label per row,
// so labels never meet, and the diagram is as wide as its lanes or its
// longest label, not as the sum of its labels (a diagram that spread its
// lifelines to fit every label between them was two or three screens
// wide).
func layoutSeq(arrows []arrow) *seqLayout {
	parts, arrows := lanes(arrows)
	l := &seqLayout{parts: parts, arrows: arrows, col: map[string]int{}}
	for i, p := range parts {
		l.col[p.id] = i
	}
	l.x = make([]float64, len(parts))
	for i := 1; i < len(parts); i++ {
		l.x[i] = l.x[i-1] + max(seqMinGap, (boxWidth(parts[i-1])+boxWidth(parts[i]))/2+10)
	}
	lo, hi := 0.0, 0.0
	if n := len(parts); n > 0 {
		lo, hi = -boxWidth(parts[0])/2, l.x[n-1]+boxWidth(parts[n-1])/2
	}
	widest := 0.0
	for _, a := range arrows {
		widest = max(widest, labelWidth(a))
	}
	l.w = math.Ceil(max(hi-lo, widest) + 2*seqMargin) // whole points: no half-covered pixel at the edge
	shift := seqMargin - lo + (l.w-2*seqMargin-(hi-lo))/2
	for i := range l.x {
		l.x[i] += shift
	}
	l.labels = make([]float64, len(arrows))
	for r, a := range arrows {
		c, half := (l.x[l.col[a.from]]+l.x[l.col[a.to]])/2, labelWidth(a)/2
		l.labels[r] = min(max(c, seqMargin+half), l.w-seqMargin-half)
	}
	l.h = 2*seqMargin + seqBoxH + 6 + float64(len(arrows))*seqRowH
	return l
}

// labelWidth is the width of an arrow's label or note, its padding
// included.
func labelWidth(a arrow) float64 { return textWidth(a.text, seqText) + 12 }

// focus is the stretch of the diagram, in points from its left edge,
// between the lifelines the events in named join ([0, 0] when none is
// named): what a reader must see first.
func (l *seqLayout) focus(named map[uint64]bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, a := range l.arrows {
		if named[a.seq] && a.seq != 0 {
			lo = min(lo, l.x[l.col[a.from]], l.x[l.col[a.to]])
			hi = max(hi, l.x[l.col[a.from]], l.x[l.col[a.to]])
		}
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

func boxWidth(p participant) float64 { return textWidth(p.name, seqName) + 16 }

func textWidth(s string, size float64) float64 { return textStyle(size).Width(s).Points() }

// seqCanvas draws the diagram on a canvas.
func seqCanvas(arrows []arrow, named map[uint64]bool) *svgCanvas {
	return seqCanvasOf(layoutSeq(arrows), named)
}

// seqCanvasOf draws a laid-out diagram.
func seqCanvasOf(l *seqLayout, named map[uint64]bool) *svgCanvas {
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
			l.note(dc, l.labels[r], y, a.text, ink)
		} else {
			l.arrow(dc, l.x[l.col[a.from]], l.x[l.col[a.to]], l.labels[r], y, a.text, ink)
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

// arrow draws an arrow from x0 to x1 with its label centred at lx, on a
// white ground where it crosses lifelines.
func (l *seqLayout) arrow(dc draw.Canvas, x0, x1, lx, y float64, text string, ink color.Color) {
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
	if half := textWidth(text, seqText)/2 + 2; lx-half < min(x0, x1) || lx+half > max(x0, x1) {
		dc.SetColor(seqGround)
		dc.Fill(rect(l.pt(lx-half, ly-2-seqText-1), l.pt(lx+half, ly-1)))
	}
	st := textStyle(seqText)
	st.Color, st.XAlign, st.YAlign = ink, draw.XCenter, draw.YBottom
	dc.FillText(st, l.pt(lx, ly-2), text)
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
