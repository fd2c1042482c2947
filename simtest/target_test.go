package simtest_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/simtest"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// crashAfterEffect is a River sweep that the naive effect-outside-tx
// design fails on every seed: its worker crashes between its effect and
// the job's completion, and the retry writes the effect again.
func crashAfterEffect() targetsim.Config {
	cfg := smallTarget(targetsim.EffectOutsideTx)
	p, err := targetsim.Vocabulary("river").Parse("crash after_effect nth=1 worker=w0")
	if err != nil {
		panic(err)
	}
	cfg.Plan = p
	return cfg
}

// smallTarget is a quick target workload: two documents, one worker, no
// swarm, under design d.
func smallTarget(d targetsim.Design) targetsim.Config {
	cfg := targetsim.DefaultConfig()
	cfg.Design, cfg.Docs, cfg.Workers, cfg.Swarm = d, 2, 1, false
	return cfg
}

func openRiver() (target.Queue, error) {
	return rivertarget.Open(context.Background(), rivertarget.SQLite, "", rivertarget.DefaultConfig())
}

// sweepOpened sweeps 3 seeds of cfg on a queue of open's.
func sweepOpened(t *testing.T, open func() (target.Queue, error), cfg targetsim.Config) {
	q, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	simtest.SweepTarget(t, q, cfg, 3)
}

// lossy is a queue of the user's own with a planted bug: River under
// another name, whose snapshot loses the last effect written. durasim's
// CLI does not open it.
type lossy struct{ target.Queue }

func (lossy) Name() string { return "lossy" }

func (q lossy) Snapshot(ctx context.Context) (target.Snapshot, error) {
	s, err := q.Queue.Snapshot(ctx)
	if n := len(s.Effects); n > 0 {
		s.Effects = s.Effects[:n-1]
	}
	return s, err
}

func openLossy() (target.Queue, error) {
	q, err := openRiver()
	return lossy{q}, err
}

var (
	failLine      = regexp.MustCompile(`FAIL seed (\d+) \(`)
	violationLine = regexp.MustCompile(`  violation: (\S+?):`)
)

// A sweep of a queue of the user's own fails on its planted bug with a
// shrunk counterexample, saves the seed, prints the go test line (no
// durasim command: the CLI cannot open it), and that line — -sim.seed=N —
// fails the same way.
func TestSweepTargetOfYourOwnQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs River on SQLite in a child process")
	}
	dir := t.TempDir()
	out, code := helper(t, dir, "lossy-target")
	m := failLine.FindStringSubmatch(out)
	v := violationLine.FindStringSubmatch(out)
	if code != 1 || m == nil || v == nil {
		t.Fatalf("lossy sweep: exit %d, want 1 with a FAIL seed and a violation\n%s", code, out)
	}
	seed := m[1]
	for _, want := range []string{
		"seeds from random root",
		"  shrunk violation: " + v[1],
		"go test . -run '^TestHelperProcess$' -sim.seed=" + seed,
		"(target lossy: durasim's CLI cannot open it",
		"simtest: saved seed " + seed,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "durasim replay") {
		t.Errorf("a durasim command for a queue the CLI cannot open:\n%s", out)
	}
	// The go test line, as the test binary runs it (saved seed deleted,
	// so that -sim.seed alone decides).
	again, code := helper(t, t.TempDir(), "lossy-target", "-sim.seed="+seed)
	if code != 1 || !strings.Contains(again, "FAIL seed "+seed+" ") || !strings.Contains(again, "  violation: "+v[1]+":") {
		t.Errorf("-sim.seed=%s: exit %d, want 1 with %s again\n%s", seed, code, v[1], again)
	}
}

var riverLine = regexp.MustCompile(`(?m)^\s*(?:go run \./cmd/durasim|durasim) replay -target river (.*)$`)

// A River sweep's failure prints durasim's replay naming River, and that
// command's flags, read back as the CLI reads them, fail the same way.
func TestSweepTargetOfRiver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs River on SQLite in a child process")
	}
	out, code := helper(t, t.TempDir(), "river-naive")
	v := violationLine.FindStringSubmatch(out)
	lines := riverLine.FindAllStringSubmatch(out, -1)
	if code != 1 || v == nil || len(lines) != 2 {
		t.Fatalf("River effect-outside-tx: exit %d, want 1 with a violation and two durasim replay lines\n%s", code, out)
	}
	for _, l := range lines {
		cfg, seed := parseTargetArgs(t, repro.ShellWords(l[1]))
		q, err := openRiver()
		if err != nil {
			t.Fatal(err)
		}
		res, err := targetsim.Run(context.Background(), q, cfg, seed)
		_ = q.Close()
		if err != nil || !res.Failed() || res.Violations[0].Invariant != v[1] {
			t.Errorf("%s: %v, violations %v; want %s first", l[0], err, res, v[1])
		}
	}
}

// parseTargetArgs reads -seed N and the run's flags, as printed.
func parseTargetArgs(t *testing.T, args []string) (targetsim.Config, uint64) {
	t.Helper()
	cfg := targetsim.DefaultConfig()
	var seed uint64
	for _, p := range repro.Pairs(args) {
		name, val := p[0], p[1]
		var err error
		if name == "seed" {
			seed, err = strconv.ParseUint(val, 10, 64)
		} else {
			err = targetsim.SetFlag(&cfg, name, val)
		}
		if err != nil {
			t.Fatalf("%q: -%s %s: %v", args, name, val, err)
		}
	}
	return cfg, seed
}
