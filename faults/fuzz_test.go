package faults

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzParse(f *testing.F) {
	f.Add(canonical)
	f.Add("crash after_lease nth=1; duplicate nth=2 # c\n\n429 at=0s for=1.5µs")
	f.Add("transient doc=2 attempt=*;;deadline doc=1 within=1h2m3.000000004s")
	f.Add("crash relay_after_publish_before_mark nth=1 worker=w1")
	f.Add("pause after_extract nth=1 worker=w0 for=-1s\r\n")
	f.Add("delay nth=2147483647 for=2562047h47m16.854775807s")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "plan:") || strings.Contains(msg, "\n") {
				t.Fatalf("Parse(%q) error is not one plan:LINE:COL line: %q", text, msg)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Parse(%q) returned an invalid plan: %v", text, err)
		}
		for _, out := range []string{p.String(), p.OneLine()} {
			again, err := Parse(out)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, re-parsing %q: %v", text, p, out, err)
			}
			if diff := cmp.Diff(p, again); diff != "" {
				t.Fatalf("re-parsing %q differs (-first +again):\n%s", out, diff)
			}
		}
	})
}
