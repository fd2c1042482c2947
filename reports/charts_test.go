package reports

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"os/exec"
	"testing"
)

// renderScale is the pixels per point of the test renders; margin is the
// room around the canvas where nothing may be drawn.
const (
	renderScale  = 2.0
	renderMargin = 24.0
)

// TestChartsRender renders every chart of every report to PNG with
// rsvg-convert (Debian's librsvg2-bin; .ci/run installs it) and checks
// what a reader would see: nothing is drawn outside the canvas (no label
// cut off), the legend box covers no data mark and no axis text, and no
// legend label overlaps its sample. It fails, never skips, without
// rsvg-convert: the charts would go unchecked.
func TestChartsRender(t *testing.T) {
	bin, err := exec.LookPath("rsvg-convert")
	if err != nil {
		t.Fatal("rsvg-convert not found: install Debian's librsvg2-bin (bash .ci/run does)")
	}
	n := 0
	generated(t)
	for _, r := range genReports {
		for _, l := range Langs() {
			charts, err := r.charts(l)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range charts {
				n++
				if msg := checkChart(t, bin, c); msg != "" {
					t.Errorf("%s/charts/%s: %s", l, c.Name, msg)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no chart rendered")
	}
}

// checkChart renders chart c's layers and returns what is wrong with it.
func checkChart(t *testing.T, bin string, c chartFile) string {
	if !bytes.Equal(c.SVG, c.canvas.svg(svgOptions{})) {
		return "its file is not its drawing"
	}
	all := rasterize(t, bin, c.canvas, nil)
	if outside(all, c) {
		return "something is drawn outside the canvas (a label is cut off)"
	}
	layer := func(name string, text bool) *image.NRGBA {
		return rasterize(t, bin, c.canvas, func(l string, tx bool) bool { return l == name && (tx == text || name != layerFrame) })
	}
	marks, swatch, key, axisText := layer(layerMarks, false), layer(layerSwatch, false), layer(layerKey, true), layer(layerFrame, true)
	if len(c.canvas.elemsIn(layerKey)) == 0 {
		return "it has no legend"
	}
	box := union(inked(swatch), inked(key))
	if hit(marks, box) {
		return "the legend box lies on the data"
	}
	if hit(axisText, box) {
		return "the legend box lies on the title or an axis label"
	}
	if overlap(swatch, key) {
		return "a legend label overlaps a sample"
	}
	return ""
}

// rasterize renders the canvas's kept layers, with the margin around it.
func rasterize(t *testing.T, bin string, cv *svgCanvas, keep func(string, bool) bool) *image.NRGBA {
	t.Helper()
	cmd := exec.Command(bin, "--format", "png")
	cmd.Stdin = bytes.NewReader(cv.svg(svgOptions{keep: keep, margin: renderMargin, scale: renderScale}))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("rsvg-convert: %v: %s", err, errb.String())
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := img.(*image.NRGBA); ok {
		return n
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Bounds(), img, img.Bounds().Min, draw.Src)
	return n
}

func ink(img *image.NRGBA, x, y int) bool { return img.NRGBAAt(x, y).A > 24 }

// outside reports ink in the margin around the canvas.
func outside(img *image.NRGBA, c chartFile) bool {
	m := int(renderMargin * renderScale)
	w, h := c.canvas.Size()
	in := image.Rect(m, m, m+int(w.Points()*renderScale+0.5), m+int(h.Points()*renderScale+0.5))
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !(image.Point{X: x, Y: y}).In(in) && ink(img, x, y) {
				return true
			}
		}
	}
	return false
}

// inked is the bounding box of the image's ink.
func inked(img *image.NRGBA) image.Rectangle {
	var r image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if ink(img, x, y) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func union(a, b image.Rectangle) image.Rectangle { return a.Union(b) }

// hit reports ink of img inside box.
func hit(img *image.NRGBA, box image.Rectangle) bool {
	box = box.Intersect(img.Bounds())
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if ink(img, x, y) {
				return true
			}
		}
	}
	return false
}

// overlap reports a pixel inked in both images, or in one and right next
// to the other (touching is overlapping to a reader).
func overlap(a, b *image.NRGBA) bool {
	r := a.Bounds()
	for y := r.Min.Y + 1; y < r.Max.Y-1; y++ {
		for x := r.Min.X + 1; x < r.Max.X-1; x++ {
			if !ink(a, x, y) {
				continue
			}
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if ink(b, x+dx, y+dy) {
						return true
					}
				}
			}
		}
	}
	return false
}

// elemsIn lists the elements drawn in layer.
func (c *svgCanvas) elemsIn(layer string) []svgElem {
	var out []svgElem
	for _, e := range c.elems {
		if e.layer == layer {
			out = append(out, e)
		}
	}
	return out
}
