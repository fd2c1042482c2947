package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// Every line of a real trace, cut short at every byte, is refused or read
// as another event.
func TestTornLinesAreNeverTheirEvent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.KeepTrace = true
	r, err := Run(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range r.Trace {
		whole, err := ParseTraceLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if err := tornLine(ParseTraceLine, 3, i+1, line, whole); err != nil {
			t.Fatal(err)
		}
	}
}

// A reader that forgives a lost tail (here: reads a line missing its last
// two bytes as the whole line) is caught, with the line and the cut named.
func TestTornLineCatchesAForgivingReader(t *testing.T) {
	line := "t=12.5ms #7 lease w1 j3 tenant=acme key=acme:d1:v1 fence=4 attempt=2 ~2000ms ok"
	whole, err := ParseTraceLine(line)
	if err != nil {
		t.Fatal(err)
	}
	forgiving := func(s string) (model.Event, error) {
		if strings.HasPrefix(line, s) && len(s) >= len(line)-2 {
			return whole, nil
		}
		return ParseTraceLine(s)
	}
	err = tornLine(forgiving, 9, 5, line, whole)
	if err == nil || !strings.Contains(err.Error(), "seed 9: trace line 5") || !strings.Contains(err.Error(), fmt.Sprintf("first %d bytes", len(line)-1)) {
		t.Fatalf("forgiving reader: err = %v", err)
	}
	if err := tornLine(ParseTraceLine, 9, 5, line, whole); err != nil {
		t.Fatal(err)
	}
}
