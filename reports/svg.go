package reports

import (
	"fmt"
	"html"
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// svgCanvas is a vg.Canvas that records a chart as SVG elements, each
// tagged with the layer it belongs to (frame, marks, legend), and draws
// text as the outlines of its glyphs. Charts so carry their letters: they
// look the same on every machine, whatever fonts it has, and the layout
// gonum computed with the font's metrics is the layout a reader sees.
// The layers let a test render the data marks and the legend apart.
type svgCanvas struct {
	w, h   vg.Length
	stack  []svgState
	elems  []svgElem
	glyphs []glyphDef
	ids    map[glyphKey]int
	layer  string
}

type svgState struct {
	color  color.Color
	width  vg.Length
	dashes []vg.Length
	offset vg.Length
	groups int // <g> elements opened since the last Push
}

// svgElem is one line of the SVG body; structural lines (group ends and
// transforms) have no layer and are always written.
type svgElem struct {
	layer string
	text  bool
	s     string
	str   string // the text a text element draws
}

type glyphKey struct {
	font string
	idx  sfnt.GlyphIndex
}

type glyphDef struct {
	key glyphKey
	d   string
}

// The chart layers.
const (
	layerFrame  = "frame"  // background, axes, grid, title, axis labels
	layerMarks  = "marks"  // the data: lines and bars
	layerSwatch = "swatch" // the legend's samples
	layerKey    = "key"    // the legend's labels
)

func newSVGCanvas(w, h vg.Length) *svgCanvas {
	return &svgCanvas{w: w, h: h, stack: []svgState{{color: color.Black, width: 1}}, ids: map[glyphKey]int{}, layer: layerFrame}
}

func (c *svgCanvas) top() *svgState         { return &c.stack[len(c.stack)-1] }
func (c *svgCanvas) Size() (w, h vg.Length) { return c.w, c.h }

func (c *svgCanvas) SetLineWidth(w vg.Length) { c.top().width = w }
func (c *svgCanvas) SetColor(clr color.Color) { c.top().color = clr }
func (c *svgCanvas) SetLineDash(dashes []vg.Length, offset vg.Length) {
	c.top().dashes, c.top().offset = append([]vg.Length(nil), dashes...), offset
}

func (c *svgCanvas) Rotate(rad float64) { c.group(fmt.Sprintf("rotate(%s)", num(rad*180/math.Pi))) }
func (c *svgCanvas) Translate(pt vg.Point) {
	c.group(fmt.Sprintf("translate(%s %s)", num(pt.X.Points()), num(pt.Y.Points())))
}
func (c *svgCanvas) Scale(x, y float64) { c.group(fmt.Sprintf("scale(%s %s)", num(x), num(y))) }

func (c *svgCanvas) group(transform string) {
	c.elems = append(c.elems, svgElem{s: `<g transform="` + transform + `">`})
	c.top().groups++
}

func (c *svgCanvas) Push() {
	s := *c.top()
	s.groups = 0
	c.stack = append(c.stack, s)
}

func (c *svgCanvas) Pop() {
	for range c.top().groups {
		c.elems = append(c.elems, svgElem{s: "</g>"})
	}
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *svgCanvas) add(text bool, s string) {
	c.elems = append(c.elems, svgElem{layer: c.layer, text: text, s: s})
}

func (c *svgCanvas) Stroke(p vg.Path) {
	st := c.top()
	if st.width <= 0 || transparent(st.color) {
		return
	}
	attrs := fmt.Sprintf(`fill="none" stroke="%s" stroke-width="%s"`, hexColor(st.color), num(st.width.Points()))
	if len(st.dashes) > 0 {
		ds := make([]string, len(st.dashes))
		for i, d := range st.dashes {
			ds[i] = num(d.Points())
		}
		attrs += fmt.Sprintf(` stroke-dasharray="%s" stroke-dashoffset="%s"`, strings.Join(ds, " "), num(st.offset.Points()))
	}
	c.add(false, fmt.Sprintf(`<path d="%s" %s%s/>`, pathData(p), attrs, opacity("stroke", st.color)))
}

func (c *svgCanvas) Fill(p vg.Path) {
	st := c.top()
	if transparent(st.color) {
		return
	}
	c.add(false, fmt.Sprintf(`<path d="%s" fill="%s"%s/>`, pathData(p), hexColor(st.color), opacity("fill", st.color)))
}

// FillString draws text as <use>s of glyph outlines defined once per
// chart, advanced and kerned as gonum measured them (font.Face.Width).
func (c *svgCanvas) FillString(f font.Face, pt vg.Point, text string) {
	if transparent(c.top().color) || text == "" {
		return
	}
	upem := f.Face.UnitsPerEm()
	ppem := fixed.Int26_6(upem)
	scale := f.Font.Size.Points() / float64(upem)
	var buf sfnt.Buffer
	var b strings.Builder
	fmt.Fprintf(&b, `<g fill="%s"%s transform="translate(%s %s) scale(%s %s)">`, hexColor(c.top().color), opacity("fill", c.top().color),
		num(pt.X.Points()), num(pt.Y.Points()), strconv.FormatFloat(scale, 'g', 8, 64), strconv.FormatFloat(-scale, 'g', 8, 64))
	x, prev := fixed.Int26_6(0), sfnt.GlyphIndex(0)
	for i, r := range text {
		idx, err := f.Face.GlyphIndex(&buf, r)
		if err != nil {
			panic(fmt.Sprintf("reports: no glyph for %q in %s: %v", r, f.Name(), err))
		}
		if i > 0 {
			if k, err := f.Face.Kern(&buf, prev, idx, ppem, 0); err == nil {
				x += k
			}
		}
		if id := c.glyph(&buf, f, idx, ppem); id >= 0 {
			fmt.Fprintf(&b, `<use xlink:href="#g%d" x="%d"/>`, id, x)
		}
		adv, err := f.Face.GlyphAdvance(&buf, idx, ppem, 0)
		if err != nil {
			panic(fmt.Sprintf("reports: no advance for %q in %s: %v", r, f.Name(), err))
		}
		x, prev = x+adv, idx
	}
	b.WriteString("</g>")
	c.elems = append(c.elems, svgElem{layer: c.layer, text: true, s: b.String(), str: text})
}

// glyph returns the id of the glyph's outline, defining it on first use
// (-1 for a glyph with no outline, a space).
func (c *svgCanvas) glyph(buf *sfnt.Buffer, f font.Face, idx sfnt.GlyphIndex, ppem fixed.Int26_6) int {
	key := glyphKey{f.Name(), idx}
	if id, ok := c.ids[key]; ok {
		return id
	}
	segs, err := f.Face.LoadGlyph(buf, idx, ppem, nil)
	if err != nil {
		panic(fmt.Sprintf("reports: glyph %d of %s: %v", idx, f.Name(), err))
	}
	id := -1
	if len(segs) > 0 {
		id = len(c.glyphs)
		c.glyphs = append(c.glyphs, glyphDef{key, outline(segs)})
	}
	c.ids[key] = id
	return id
}

// outline is the SVG path of a glyph in font units (y down, as sfnt
// gives it; FillString's transform flips it).
func outline(segs sfnt.Segments) string {
	var b strings.Builder
	pt := func(p fixed.Point26_6) { fmt.Fprintf(&b, " %d %d", p.X, p.Y) }
	for i, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			if i > 0 {
				b.WriteString("Z")
			}
			b.WriteString("M")
			pt(s.Args[0])
		case sfnt.SegmentOpLineTo:
			b.WriteString("L")
			pt(s.Args[0])
		case sfnt.SegmentOpQuadTo:
			b.WriteString("Q")
			pt(s.Args[0])
			pt(s.Args[1])
		case sfnt.SegmentOpCubeTo:
			b.WriteString("C")
			pt(s.Args[0])
			pt(s.Args[1])
			pt(s.Args[2])
		}
	}
	b.WriteString("Z")
	return strings.ReplaceAll(b.String(), "M ", "M")
}

// DrawImage is not used by any chart; a chart that drew an image would
// lose it silently, so it fails loudly instead.
func (c *svgCanvas) DrawImage(vg.Rectangle, image.Image) {
	panic("reports: charts do not draw images")
}

// svgOptions choose what a rendering shows: the layers kept (nil: all),
// a margin around the canvas (in points) and a scale from points to
// pixels (0: the chart's own size in points).
type svgOptions struct {
	keep   func(layer string, text bool) bool
	margin float64
	scale  float64
	// inline is for an SVG inside an HTML page: no XML declaration, and
	// the glyph ids prefixed with ids (several SVGs share one page's ids).
	inline bool
	ids    string
	// textAttr tags each text's group with the text it draws
	// (data-text), for a browser test to find the text among the shapes.
	textAttr bool
}

// svg writes the chart. The production form is svg(svgOptions{}).
func (c *svgCanvas) svg(o svgOptions) []byte {
	var b strings.Builder
	w, h, m := c.w.Points(), c.h.Points(), o.margin
	size := fmt.Sprintf(`width="%spt" height="%spt"`, num(w+2*m), num(h+2*m))
	if o.scale > 0 {
		size = fmt.Sprintf(`width="%s" height="%s"`, num((w+2*m)*o.scale), num((h+2*m)*o.scale))
	}
	if !o.inline {
		b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	}
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" %s viewBox=\"%s %s %s %s\">\n",
		size, num(-m), num(-m), num(w+2*m), num(h+2*m))
	b.WriteString("<defs>\n")
	ids := "g" + o.ids
	for i, g := range c.glyphs {
		fmt.Fprintf(&b, "<path id=\"%s%d\" d=\"%s\"/>\n", ids, i, g.d)
	}
	b.WriteString("</defs>\n")
	fmt.Fprintf(&b, "<g transform=\"matrix(1 0 0 -1 0 %s)\">\n", num(h))
	for _, e := range c.elems {
		if e.layer == "" || o.keep == nil || o.keep(e.layer, e.text) {
			s := e.s
			if o.ids != "" && e.text {
				s = strings.ReplaceAll(s, `xlink:href="#g`, `xlink:href="#`+ids)
			}
			if o.textAttr && e.text {
				s = `<g data-text="` + html.EscapeString(e.str) + `"` + strings.TrimPrefix(s, "<g")
			}
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	b.WriteString("</g>\n</svg>\n")
	return []byte(b.String())
}

// pathData is a vg.Path as SVG path data (arcs as short line segments).
func pathData(p vg.Path) string {
	var b strings.Builder
	pt := func(op string, q vg.Point) {
		b.WriteString(op + num(q.X.Points()) + " " + num(q.Y.Points()))
	}
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			pt("M", comp.Pos)
		case vg.LineComp:
			pt("L", comp.Pos)
		case vg.ArcComp:
			for k := 0; k <= 32; k++ {
				a := comp.Start + comp.Angle*float64(k)/32
				op := "L"
				if k == 0 && b.Len() == 0 {
					op = "M"
				}
				pt(op, vg.Point{X: comp.Pos.X + comp.Radius*vg.Length(math.Cos(a)), Y: comp.Pos.Y + comp.Radius*vg.Length(math.Sin(a))})
			}
		case vg.CurveComp:
			op := "Q"
			if len(comp.Control) == 2 {
				op = "C"
			}
			for i, q := range comp.Control {
				if i == 0 {
					pt(op, q)
				} else {
					pt(" ", q)
				}
			}
			pt(" ", comp.Pos)
		case vg.CloseComp:
			b.WriteString("Z")
		}
	}
	return b.String()
}

// num prints a coordinate with two decimals at most: stable bytes.
func num(x float64) string {
	if math.Abs(x) < 0.005 {
		return "0"
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

func transparent(c color.Color) bool {
	_, _, _, a := c.RGBA()
	return a == 0
}

func hexColor(c color.Color) string {
	r, g, b, a := c.RGBA()
	if a == 0 {
		return "none"
	}
	un := func(v uint32) uint32 { return v * 0xffff / a >> 8 }
	return fmt.Sprintf("#%02X%02X%02X", un(r), un(g), un(b))
}

func opacity(what string, c color.Color) string {
	_, _, _, a := c.RGBA()
	if a == 0xffff {
		return ""
	}
	return fmt.Sprintf(` %s-opacity="%s"`, what, num(float64(a)/0xffff))
}
