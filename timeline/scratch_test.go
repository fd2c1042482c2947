package timeline

import (
	"os"
	"testing"

	"github.com/durasim/durasim/internal/browser"
)

func TestScratch(t *testing.T) {
	file := os.Getenv("PAGE")
	if file == "" {
		t.Skip()
	}
	b := browser.Start(t)
	p := b.Open(t, file)
	info := browser.Eval[any](t, p, `window.durasimTimelines.map(function(t){return t.info()})`)
	t.Logf("%v", info)
	if js := os.Getenv("JS"); js != "" {
		t.Logf("%v", browser.Eval[any](t, p, js))
	}
	p.Screenshot(t, os.Getenv("SHOT"))
	for _, pr := range p.Problems() {
		t.Log(pr)
	}
}
