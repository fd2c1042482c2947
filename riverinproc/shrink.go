package riverinproc

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// Shrunk is an in-process failure's deterministic counterpart: a
// targetsim plan on the same design and seed that fails the same check on
// River's deterministic mode (rivertarget), shrunk by targetsim's
// shrinker, and the command that runs it.
type Shrunk struct {
	Check     string // the in-process run's first failed check, which the plan fails too
	Config    targetsim.Config
	Seed      uint64
	Command   string // durasim run ... -plan '...': run as printed, it fails Check
	Plan      string // the shrunk plan, one line
	Candidate string // the candidate plan that failed first, before shrinking
	Tried     int    // candidates run
	Runs      int    // the shrinker's runs
}

// Shrinking is what became of one failure's search for a deterministic
// plan: Shrunk, or nil with Tried candidates none of which failed Check.
type Shrinking struct {
	Check  string
	Tried  int
	Shrunk *Shrunk
	Real   time.Duration
}

// deterministic translates what the failing run o did to River's
// clients into candidate targetsim plans (kills → crash at the same
// boundary by the slot's worker, its nth crossing there as the record
// counts it; freezes → a pause of that worker after its fetch of the
// frozen job, slow work of the frozen job's document and attempt, and,
// for a never-killed client (it leads, and runs River's rescuer), a
// pause of the rescuer between its two calls; each as long as the
// freeze), runs each on River's deterministic mode with the same design
// and seed, and shrinks the first that fails the same check. cli is how
// the user runs durasim.
func deterministic(ctx context.Context, c Config, seed uint64, o *outcome, cli string) (*Shrinking, error) {
	t0 := time.Now()
	check := firstCheck(o.rep)
	sg := &Shrinking{Check: check}
	defer func() { sg.Real = time.Since(t0) }()
	if check == "" {
		return sg, nil
	}
	qc := rivertarget.CLIConfig(target.Time(c.RescueAfter))
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", qc)
	if err != nil {
		return sg, err
	}
	defer q.Close()
	base := targetsim.DefaultConfig()
	base.Design, base.Swarm, base.SwarmClocks = c.Design, false, false
	base.Workers, base.MaxAttempts = c.Workers, c.MaxAttempts
	all := min(max(docCount(o.lines), base.Docs), targetsim.MaxDocs)
	// Each candidate on the fewest documents it names (at least the
	// default sweep's), then on all the run inserted: the shrinker's
	// document pass is one run per document.
	var tries []targetsim.Config
	for _, plan := range candidates(c, o.lines, all) {
		for _, n := range []int{max(base.Docs, highestDoc(plan)), all} {
			cfg := base
			cfg.Plan, cfg.Docs = plan, n
			if !slices.ContainsFunc(tries, func(t targetsim.Config) bool { return t.Docs == n && slices.Equal(t.Plan.Faults, plan.Faults) }) {
				tries = append(tries, cfg)
			}
		}
	}
	for _, cfg := range tries {
		plan := cfg.Plan
		if cfg.Validate() != nil {
			continue
		}
		sg.Tried++
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return sg, err
		}
		if res.First(check).Invariant == "" {
			continue
		}
		sh, err := targetsim.Shrink(ctx, q, cfg, seed, res, check)
		if err != nil {
			return sg, err
		}
		rp := targetsim.Reproducer{CLI: cli}
		line, err := rp.Line("run", q, sh.Config, seed)
		if err != nil {
			return sg, err
		}
		sg.Shrunk = &Shrunk{Check: check, Config: sh.Config, Seed: seed, Command: line, Plan: sh.Config.Plan.OneLine(),
			Candidate: plan.OneLine(), Tried: sg.Tried, Runs: sh.Runs}
		return sg, nil
	}
	return sg, nil
}

// firstCheck is the name of the first check rep failed ("" none).
func firstCheck(rep *workload.Report) string {
	if len(rep.Violations) > 0 {
		return rep.Violations[0].Invariant
	}
	for _, v := range rep.Checks {
		if v.Failed != "" {
			return v.Check
		}
	}
	return ""
}

// crossingOp is the history's op that a handler writes just before it
// crosses kill point b.
var crossingOp = map[boundary.Boundary]string{boundary.AfterFetch: workload.OpFetch, boundary.AfterWork: workload.OpWork,
	boundary.AfterEffect: workload.OpEffect, boundary.BeforeCommit: workload.OpComplete, boundary.AfterCommit: workload.OpCommit}

// candidates are the plans the record of a failing run translates into,
// the most literal first: every kill and every freeze as a worker pause;
// the freezes as slow work instead; the freezes of a leading client as
// the rescuer's pause; then each of those without the kills.
func candidates(c Config, lines []workload.Entry, docs int) []faults.Plan {
	slotOf := map[string]int{}
	docOf := map[int64]int{}
	crossings := map[string]map[int]int32{} // op → slot → count so far
	fetchNth := map[[2]int64]int32{}        // job, attempt → the slot's nth fetch of it
	var kills, pauses, slows, rescuers []faults.Fault
	stops := map[string]workload.Entry{}
	for _, e := range lines {
		if e.Op == workload.OpStart {
			slotOf[e.Proc] = slotOfName(e.Proc)
		}
	}
	for _, e := range lines {
		slot, worker := slotOf[e.Proc]
		if worker && crossings[e.Op] == nil {
			crossings[e.Op] = map[int]int32{}
		}
		switch {
		case e.Op == workload.OpInsert && !e.Skipped:
			docOf[e.Job] = docIndex(e, docs)
		case e.Op == workload.OpStop:
			stops[e.Point] = e
		case e.Op == workload.OpCont:
			s, ok := stops[e.Point]
			if !ok {
				continue
			}
			delete(stops, e.Point)
			d := (time.Duration(e.T0 - s.T0)).Round(time.Millisecond)
			d = min(max(d, time.Millisecond), time.Hour)
			slot := slotOfName(e.Point)
			if n := fetchNth[[2]int64{s.Job, int64(s.Attempt)}]; n > 0 {
				pauses = append(pauses, faults.Fault{Kind: faults.Pause, Boundary: boundary.AfterFetch, Nth: n, Worker: int32(slot), For: target.Time(d)})
			}
			if doc := docOf[s.Job]; doc > 0 {
				slows = append(slows, faults.Fault{Kind: faults.Slow, Doc: int32(doc), Attempt: int32(s.Attempt), For: target.Time(d)})
			}
			if slot < c.Steady {
				for n := int32(1); n <= 3; n++ {
					rescuers = append(rescuers, faults.Fault{Kind: faults.Pause, Boundary: boundary.RescuerAfterStuck, Nth: n, Worker: faults.AnyWorker, For: target.Time(d)})
				}
			}
		case !worker:
		case e.Op == workload.OpKill:
			b, ok := boundary.Parse(e.Point)
			if op := crossingOp[b]; ok && op != "" {
				kills = append(kills, faults.Fault{Kind: faults.Crash, Boundary: b, Nth: crossings[op][slot], Worker: int32(slot)})
			}
		default:
			crossings[e.Op][slot]++
			if e.Op == workload.OpFetch {
				fetchNth[[2]int64{e.Job, int64(e.Attempt)}] = crossings[e.Op][slot]
			}
		}
	}
	plan := func(parts ...[]faults.Fault) faults.Plan {
		var fs []faults.Fault
		for _, p := range parts {
			fs = append(fs, p...)
		}
		return faults.Plan{Faults: fs}
	}
	var out []faults.Plan
	add := func(p faults.Plan) {
		if p.Len() > 0 && !slices.ContainsFunc(out, func(q faults.Plan) bool { return slices.Equal(p.Faults, q.Faults) }) {
			out = append(out, p)
		}
	}
	for _, freezes := range [][]faults.Fault{pauses, slows, rescuers} {
		add(plan(kills, freezes))
	}
	for _, freezes := range [][]faults.Fault{pauses, slows, rescuers} {
		add(plan(freezes))
	}
	for _, r := range rescuers { // the rescuer's pause beside the frozen client's, one nth at a time
		add(plan(pauses, []faults.Fault{r}))
		add(plan(slows, []faults.Fault{r}))
	}
	add(plan(kills))
	return out
}

// slotOfName is the slot of process w<slot>[.<incarnation>] (-1 for
// another name).
func slotOfName(name string) int {
	var s, n int
	if k, _ := fmt.Sscanf(name, "w%d.%d", &s, &n); k >= 1 {
		return s
	}
	return -1
}

// docIndex is the document number (workload.DocOf's argument) of an
// insert line, 0 past docs.
func docIndex(e workload.Entry, docs int) int {
	for i := 1; i <= docs; i++ {
		if a := workload.DocOf(i); a.Tenant == e.Tenant && a.Doc == e.Doc {
			return i
		}
	}
	return 0
}

// docCount is how many documents the run inserted (the highest).
func docCount(lines []workload.Entry) int {
	seen := map[[2]string]bool{}
	for _, e := range lines {
		if e.Op == workload.OpInsert {
			seen[[2]string{e.Tenant, e.Doc}] = true
		}
	}
	return len(seen)
}

// highestDoc is the highest document a fault of p names.
func highestDoc(p faults.Plan) int {
	n := 0
	for _, f := range p.Faults {
		n = max(n, int(f.Doc))
	}
	return n
}
