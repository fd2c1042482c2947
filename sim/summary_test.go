package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// TestSummaryWriteNilDesign: Write with no design uses the one the summary
// is named after, and a name it does not know prints no boundary lines.
func TestSummaryWriteNilDesign(t *testing.T) {
	sum := sim.NewSummary("no-fencing")
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := sim.Run(sim.DefaultConfig(), seed)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(res)
	}
	d, err := model.LookupDesign("no-fencing")
	if err != nil {
		t.Fatal(err)
	}
	var named, nilDesign bytes.Buffer
	sum.Write(&named, d)
	sum.Write(&nilDesign, nil)
	if named.String() != nilDesign.String() {
		t.Fatalf("Write(w, nil) differs from Write(w, its design):\n%s---\n%s", nilDesign.String(), named.String())
	}
	var unknown bytes.Buffer
	sim.NewSummary("not-a-design").Write(&unknown, nil)
	if strings.Contains(unknown.String(), "boundaries") || !strings.Contains(unknown.String(), "violations  0 seed(s)") {
		t.Fatalf("summary of an unknown design:\n%s", unknown.String())
	}
}
