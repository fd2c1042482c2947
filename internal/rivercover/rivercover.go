package rivercover

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/internal/mutation"
	"github.com/durasim/durasim/target/rivertarget"
)

// riverPrefix is the import path every River package starts with.
const riverPrefix = "github.com/riverqueue/river"

// Mode is one way durasim runs River: the CLI runs that measure it (a
// lone ";" separates runs, whose coverage adds up), or why it is skipped.
type Mode struct {
	Name string
	Args []string
	Skip string
}

// Modes are River's modes: the deterministic sweep (seeds seeds of the
// default design, a quarter as many of the outbox design, which inserts in
// the handler's transaction) and, when a PostgreSQL URL is set, a short
// real-process chaos run (River's started client in child processes;
// killed children write no counters, the steady one does) and a races
// run; the in-process mode runs a fiftieth as many seeds (two at least).
func Modes(seeds int, pgURL string) ([]Mode, error) {
	if seeds < 1 {
		return nil, fmt.Errorf("seeds must be at least 1, got %d", seeds)
	}
	det := Mode{Name: "deterministic", Args: []string{"run", "-target", "river", "-seeds", "1:" + strconv.Itoa(seeds), ";",
		"run", "-target", "river", "-design", "outbox", "-seeds", "1:" + strconv.Itoa(max(seeds/4, 1))}}
	// River's started clients in one synctest bubble on SQLite (package
	// riverinproc): the correct design and the naive one, which fails
	// (its failing seed's reruns count too).
	inproc := Mode{Name: "inprocess", Args: []string{"chaos", "-target", "river", "-inprocess", "-seeds", "1:" + strconv.Itoa(max(seeds/50, 2)), ";",
		"chaos", "-target", "river", "-inprocess", "-design", "effect-outside-tx", "-seeds", "4:4", "-reruns", "1"}}
	chaos := Mode{Name: "chaos", Args: []string{"chaos", "-target", "river", "-db", pgURL, "-workers", "3", "-steady", "1", "-jobs", "20",
		"-kills", "10", "-zombies", "1"}}
	// The races mode: the deterministic sweep with each actor on its own
	// PostgreSQL connection, calls waiting on each other's row locks (a
	// hundredth as many seeds, five at least: a seed costs about a second).
	races := Mode{Name: "races", Args: []string{"run", "-target", "river", "-backend", "postgres", "-db", pgURL, "-scratch-db", "-races",
		"-seeds", "1:" + strconv.Itoa(max(seeds/100, 5))}}
	if pgURL == "" {
		chaos.Args, chaos.Skip = nil, "no PostgreSQL: set DURASIM_PG_URL (make pg-up prints it)"
		races.Args, races.Skip = nil, chaos.Skip
	}
	return []Mode{det, inproc, chaos, races}, nil
}

// Packages are the River packages the CLI (mainPkg) links, sorted.
func Packages(mainPkg string) ([]string, error) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", mainPkg).Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", mainPkg, err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if p == riverPrefix || strings.HasPrefix(p, riverPrefix+"/") {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s links no River package", mainPkg)
	}
	slices.Sort(pkgs)
	return pkgs, nil
}

// Result is one mode's coverage (nil Run: skipped).
type Result struct {
	Mode Mode
	Run  *mutation.CoverRun
}

// Measure runs each mode under coverage of pkgs, in dir.
func Measure(mainPkg string, pkgs []string, modes []Mode, dir string) ([]Result, error) {
	var out []Result
	for _, m := range modes {
		if m.Skip != "" {
			out = append(out, Result{Mode: m})
			continue
		}
		d := filepath.Join(dir, m.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		run, err := mutation.Cover(mutation.CoverOptions{Main: mainPkg, Args: m.Args, Pkgs: pkgs, Dir: d, AllRuns: true})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		out = append(out, Result{Mode: m, Run: run})
	}
	return out, nil
}

// Write prints, per River package, the statements each mode reached,
// then what each mode ran and the parts durasim re-enacts.
func Write(w io.Writer, pkgs []string, res []Result) {
	fmt.Fprintf(w, "%-58s", "River package (statements reached)")
	for _, r := range res {
		fmt.Fprintf(w, " %22s", r.Mode.Name)
	}
	fmt.Fprintln(w)
	for _, p := range pkgs {
		fmt.Fprintf(w, "%-58s", short(p))
		for _, r := range res {
			fmt.Fprintf(w, " %22s", cell(r, p))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, r := range res {
		switch {
		case r.Run == nil:
			fmt.Fprintf(w, "%-14s skipped: %s\n", r.Mode.Name, r.Mode.Skip)
		default:
			fmt.Fprintf(w, "%-14s durasim %s (%.0f s", r.Mode.Name, strings.Join(r.Mode.Args, " "), r.Run.Elapsed.Seconds())
			if r.Run.ExitCode != 0 {
				// A sweep exits 1 when a seed fails (River's own findings
				// among them): what it ran still counts.
				fmt.Fprintf(w, "; a run exited %d", r.Run.ExitCode)
			}
			fmt.Fprintln(w, ")")
		}
	}
	fmt.Fprintln(w, "\nRiver's client logic in the deterministic sweep:")
	for _, p := range rivertarget.Parts {
		what := "re-enacted"
		if p.Runs {
			what = "River's code"
		}
		fmt.Fprintf(w, "  %-13s %s: %s\n", what, p.Name, p.How)
	}
	fmt.Fprintln(w, "The in-process mode (chaos -target river -inprocess) re-enacts none of them: River's started clients run its producer,")
	fmt.Fprintln(w, "executor with its job timeout, batch completer, leader election, rescuer, scheduler and default retry policy, under virtual time.")
}

// short is a River package's path inside River's repository ("river"
// for the root package).
func short(p string) string {
	if p == riverPrefix {
		return "river"
	}
	return strings.TrimPrefix(p, riverPrefix+"/")
}

// cell is package p's figure in r: percent and statements, "-" for a
// skipped mode.
func cell(r Result, p string) string {
	if r.Run == nil {
		return "-"
	}
	reached, total := r.Run.Profile.Statements(p)
	if total == 0 {
		return "no statements"
	}
	return fmt.Sprintf("%5.1f%% %5d/%-5d", 100*float64(reached)/float64(total), reached, total)
}
