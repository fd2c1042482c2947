package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
)

// TestScenarios runs every scenario and asserts every check of every arm.
// An arm whose naive variant is not registered yet is skipped by name.
func TestScenarios(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			outs, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range outs {
				if o.Missing != "" {
					t.Skipf("arm %s: variant %q is not registered yet", o.Arm.Name(), o.Missing)
				}
				for _, c := range o.Checks {
					if c.Err != nil {
						t.Errorf("arm %s: %s: %v", o.Arm.Name(), c.Check.Says.En, c.Err)
					}
				}
			}
			for _, c := range s.Claims {
				if err := c.Check(outs); err != nil {
					t.Errorf("claim about %s: %v", c.Arm, err)
				}
			}
		})
	}
}

// TestCatalogue checks the shape of every scenario: the 17 names,
// both languages everywhere, a correct first arm, a naive arm that is
// expected to fail, charts, and registered variants.
func TestCatalogue(t *testing.T) {
	want := []string{"opening-incident", "zombie-worker", "infinite-retry", "llm-in-replay", "dual-write",
		"cross-tenant", "poison-dlq", "deadline-cancel", "reprocess-audited", "redrive-keys", "retry-storm",
		"circuit-breaker", "head-of-line", "synthetic-metrics", "async-request-reply", "relay-republish", "sqlite-lab"}
	if got := strings.Join(scenarios.Names(), " "); got != strings.Join(want, " ") {
		t.Fatalf("scenarios:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
	for _, s := range scenarios.All() {
		for what, txt := range map[string]scenarios.Text{"title": s.Title, "claim": s.Claim, "story": s.Story} {
			if txt.PtBR == "" || txt.En == "" || txt.PtBR == txt.En {
				t.Errorf("%s: %s needs both languages", s.Name, what)
			}
		}
		if len(s.Sources) == 0 || len(s.Charts) == 0 || len(s.Arms) < 2 {
			t.Errorf("%s: needs a source, a chart and at least two arms", s.Name)
		}
		if s.Arms[0].Naive() {
			t.Errorf("%s: the first arm must be the correct design", s.Name)
		}
		names := map[string]bool{}
		for _, a := range s.Arms {
			if names[a.Name()] {
				t.Errorf("%s: two arms called %s", s.Name, a.Name())
			}
			names[a.Name()] = true
			if len(a.Checks) == 0 || a.Says.PtBR == "" || a.Says.En == "" {
				t.Errorf("%s, arm %s: needs checks and a description in both languages", s.Name, a.Name())
			}
			for _, c := range a.Checks {
				if c.Says.PtBR == "" || c.Says.En == "" {
					t.Errorf("%s, arm %s: a check lacks a language", s.Name, a.Name())
				}
			}
			if a.Custom == nil {
				if _, err := model.LookupDesign(a.Variant); err != nil {
					t.Logf("%s, arm %s: %v", s.Name, a.Name(), err)
				}
			}
		}
		for _, c := range s.Claims {
			if !names[c.Arm] || !names[c.Other] || c.Arm == c.Other {
				t.Errorf("%s: a claim compares %q with %q, which are not two of its arms", s.Name, c.Arm, c.Other)
			}
			if c.Why.PtBR == "" || c.Why.En == "" {
				t.Errorf("%s: a claim about %s lacks its reason in a language", s.Name, c.Arm)
			}
		}
		if _, err := scenarios.Lookup(s.Name); err != nil {
			t.Error(err)
		}
	}
	if _, err := scenarios.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "opening-incident") {
		t.Errorf("Lookup(nope) = %v, want an error listing the names", err)
	}
}

// TestDeterministic runs every scenario twice: same hashes.
func TestDeterministic(t *testing.T) {
	for _, s := range scenarios.All() {
		a, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.Run()
		for i := range a {
			if a[i].Result != nil && a[i].Result.Hash != b[i].Result.Hash {
				t.Errorf("%s, arm %s: hash %x then %x", s.Name, a[i].Arm.Name(), a[i].Result.Hash, b[i].Result.Hash)
			}
		}
	}
}

// TestQuotes checks that every quote is verbatim from its course document
// (the documents live in the shared folder beside the repository; the test
// is skipped where they are not).
func TestQuotes(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "seeds")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Skip("course documents not found in " + dir)
	}
	text := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text[filepath.Base(f)[:3]] = string(b)
	}
	for _, s := range scenarios.All() {
		for _, src := range s.Sources {
			doc := text[src.Seed.Number()]
			if doc == "" {
				t.Errorf("%s: no document for seed %s", s.Name, src.Seed.Number())
				continue
			}
			if src.Quote == "" || !strings.Contains(doc, src.Quote) {
				t.Errorf("%s: quote not found verbatim in seed %s: %q", s.Name, src.Seed.Number(), src.Quote)
			}
		}
	}
}
