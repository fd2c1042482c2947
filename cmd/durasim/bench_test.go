package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// The shape of `durasim bench -json`, on a tiny run: every key the issue
// names, positive rates, and a deterministic durasim. No timing is
// asserted.
func TestBenchJSONShape(t *testing.T) {
	var out, errb bytes.Buffer
	ownT := func(f func(*testing.T)) error { f(t); return nil }
	if err := benchCommand([]string{"-json", "-seeds", "2", "-mock-seeds", "1"}, &out, &errb, ownT); err != nil {
		t.Fatalf("bench: %v\n%s", err, errb.String())
	}
	var rep map[string]any
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	if dec.More() {
		t.Fatal("more than one JSON value")
	}
	rates, _ := rep["events_per_sec"].(map[string]any)
	det, _ := rep["deterministic"].(map[string]any)
	for _, name := range []string{"bare_loop", "durasim", "synctest", "clock_mock"} {
		if r, ok := rates[name].(float64); !ok || r <= 0 {
			t.Errorf("events_per_sec.%s = %v, want a positive number", name, rates[name])
		}
		if _, ok := det[name].(bool); !ok {
			t.Errorf("deterministic.%s = %v, want a boolean", name, det[name])
		}
	}
	if s, ok := rep["seeds_per_sec"].(float64); !ok || s <= 0 {
		t.Errorf("seeds_per_sec = %v, want a positive number", rep["seeds_per_sec"])
	}
	if det["durasim"] != true || det["bare_loop"] != true {
		t.Errorf("durasim and the bare loop must repeat their hash: %v", det)
	}
}

func TestBenchRejectsBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	for _, args := range [][]string{{"-seeds", "0"}, {"-mock-seeds", "0"}, {"-nope"}, {"extra"}} {
		code := run(append([]string{"bench"}, args...), &out, &errb)
		if code != 2 {
			t.Errorf("bench %v: status %d, want 2", args, code)
		}
	}
}

// Inside a test binary the CLI's own testing.M cannot run; the caller must
// hand over its *testing.T.
func TestCLITestingTRefusesInsideTests(t *testing.T) {
	if err := cliTestingT(func(*testing.T) {}); err == nil {
		t.Fatal("cliTestingT ran inside a test binary")
	}
}

// The goroutine runners submit sim's documents: sim.Workload (which
// benchWorkload returns) must be what sim.Run actually submits. Checked through sim's own trace (no faults):
// each client's accept is at its document's arrival, and the extraction of
// its job takes the document's latency and tokens.
func TestBenchWorkloadMatchesSim(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Swarm, cfg.KeepTrace = false, true
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		docs := benchWorkload(cfg, seed)
		docOf := map[model.JobID]int{}
		checked := 0
		for _, e := range res.History {
			switch {
			case e.Kind == model.EvAccept && e.OK:
				i := int(e.Actor.ID) - 1
				docOf[e.Job] = i
				if e.At != docs[i].Arrival || e.Tenant != docs[i].Tenant {
					t.Errorf("seed %d doc %d: sim accepts it at %d for %s, benchWorkload says %d for %s", seed, i+1, e.At, e.Tenant, docs[i].Arrival, docs[i].Tenant)
				}
			case e.Kind == model.EvExtract && e.Stage == model.StageExtract:
				i, ok := docOf[e.Job]
				if !ok {
					continue
				}
				checked++
				if e.N != docs[i].Latency || e.N2 != docs[i].Tokens {
					t.Errorf("seed %d doc %d: sim extracts in %d with %d tokens, benchWorkload says %d and %d", seed, i+1, e.N, e.N2, docs[i].Latency, docs[i].Tokens)
				}
			}
		}
		if checked < len(docs) {
			t.Errorf("seed %d: only %d of %d extractions checked", seed, checked, len(docs))
		}
	}
}
