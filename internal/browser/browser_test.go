package browser

import (
	"os"
	"path/filepath"
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
