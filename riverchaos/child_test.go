package riverchaos

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/targetsim"
)

// A child's command line parses back into the configuration that
// printed it.
func TestChildArgsRoundTrip(t *testing.T) {
	workloadtest.ArgsRoundTrip(t, []ChildConfig{
		{Child: workload.Child{ID: 2, Incarnation: 7, Design: targetsim.TxAsDocumented, Kill: crash.Assignment{At: boundary.BeforeCommit, Nth: 3},
			History: "/tmp/x/w2.7.jsonl", Seed: 9, Concurrency: 3, Work: 40 * time.Millisecond}, NoLead: true,
			MaxAttempts: 4, RescueAfter: 2500 * time.Millisecond, JobTimeout: time.Second, RetryCap: time.Second},
		{Child: workload.Child{Design: targetsim.EffectOutsideTx, Kill: crash.Assignment{Nth: 1}, Seed: 1, Concurrency: 1, Work: time.Millisecond},
			MaxAttempts: 1, RescueAfter: 3 * time.Second, JobTimeout: 2 * time.Second, RetryCap: 2 * time.Second},
	}, func(got *ChildConfig, c ChildConfig) { got.DB = c.DB })
}

// Bad child configurations are one-line errors; a kill point the design
// does not cross is refused.
func TestChildValidate(t *testing.T) {
	ok := workloadtest.Flagged[ChildConfig]()
	ok.DB = "x"
	workloadtest.Refused(t, ok, ChildConfig.Validate, map[string]func(*ChildConfig){
		"no db":               func(c *ChildConfig) { c.DB = "" },
		"kill-nth 0":          func(c *ChildConfig) { c.Kill = crash.Assignment{At: boundary.AfterFetch} },
		"timeout past rescue": func(c *ChildConfig) { c.JobTimeout = c.RescueAfter },
		"no commit outside": func(c *ChildConfig) {
			c.Design, c.Kill = targetsim.EffectOutsideTx, crash.Assignment{At: boundary.BeforeCommit, Nth: 1}
		},
		"workers 0": func(c *ChildConfig) { c.Concurrency = 0 },
	})
}

// The kill points per design: JobCompleteTx only in the transactional
// ones, a commit wherever there is a transaction; a point the design does
// not cross is refused.
func TestPoints(t *testing.T) {
	if got := PointsOf(targetsim.TxChecked).List(); !slices.Equal(got, []boundary.Boundary{boundary.AfterFetch, boundary.AfterEffect,
		boundary.BeforeCommit, boundary.AfterCommit}) {
		t.Errorf("tx-checked points %v", got)
	}
	if got := PointsOf(targetsim.IdempotentKey).List(); !slices.Equal(got, []boundary.Boundary{boundary.AfterFetch, boundary.AfterEffect, boundary.AfterCommit}) {
		t.Errorf("idempotent-key points %v", got)
	}
	err := crash.Assignment{At: boundary.AfterCommit, Nth: 1}.Check(PointsOf(targetsim.EffectOutsideTx), nil)
	if err == nil || !strings.Contains(err.Error(), "River's effect-outside-tx handler has no boundary after_commit") {
		t.Errorf("effect-outside-tx at after_commit: %v", err)
	}
}

// A Killer writes River's kill line with the job the handler held.
func TestKillerLine(t *testing.T) {
	var died []boundary.Boundary
	h := &workload.History{Proc: "w1"}
	k := &workload.Killer{Assignment: crash.Assignment{At: boundary.BeforeCommit, Nth: 2}, Hist: h, Kill: func(p boundary.Boundary) { died = append(died, p) }}
	for _, p := range []boundary.Boundary{boundary.AfterFetch, boundary.BeforeCommit, boundary.AfterEffect, boundary.BeforeCommit, boundary.BeforeCommit} {
		k.Cross(p, workload.Entry{Job: 5, Attempt: 1})
	}
	if !slices.Equal(died, []boundary.Boundary{boundary.BeforeCommit}) {
		t.Errorf("died at %v, want once at before_commit", died)
	}
	es := h.Entries()
	if len(es) != 1 || es[0].Op != workload.OpKill || es[0].Point != "before_commit" || es[0].Job != 5 || es[0].Attempt != 1 || es[0].Proc != "w1" || es[0].T1 == 0 {
		t.Errorf("history %+v, want one kill line for j5", es)
	}
}

func TestIsChildName(t *testing.T) {
	for s, want := range map[string]bool{"w0": true, "w3.12": true, "w10.1": true, "orchestrator": false, "w": false, "w1.": false,
		"web-1": false, "w1.2.3": false} {
		if got := isChildName(s); got != want {
			t.Errorf("isChildName(%q) = %v", s, got)
		}
	}
	if !isChildName(ProcName(4, 0)) || !isChildName(ProcName(4, 9)) {
		t.Error("ProcName is not a child's name")
	}
}
