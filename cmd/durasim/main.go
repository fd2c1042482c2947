package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/durasim/durasim/sim"
)

// command is one entry of the command table, from which the usage text,
// the unknown-command error and each command's -h are all derived.
type command struct {
	name    string
	args    string // what follows the name on a usage line
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is the table. (A function, not a variable: the commands'
// flag parsing looks their usage line up in it.)
func commands() []command {
	return []command{
		{"run", "[-seed N | -seeds A:B | -scenario NAME|all] [flags]", "run one seed or a range of seeds and check every invariant", cmdRun},
		{"replay", "-seed N [flags]", "print the trace of one seed, ending with its hash", cmdReplay},
		{"shrink", "-seed N [flags]", "shrink a failing seed to a minimal counterexample", cmdShrink},
		{"scenarios", "", "list the course scenarios", cmdScenarios},
		{"report", "[-out DIR] [-lang pt-BR|en] [-scenario NAME]", "write the scenario reports and the River report (Markdown + SVG charts, and the HTML site; pt-BR and en)", cmdReport},
		{"mutants", "[-seeds A:B] [flags]", "catch every naive variant: seeds to first catch, shrunk counterexample", cmdMutants},
		{"bench", "[flags]", "events/s of durasim against a bare event loop, synctest and clock.Mock", cmdBench},
		{"chaos", "[-db URL] [flags]", "real crashes: worker processes on PostgreSQL SIGKILLed at named points, then checked (-target river -inprocess: River's clients in one synctest bubble, virtual time)", cmdChaos},
		{"worker", "-role worker|relay|consumer|operator [flags]", "one process of a chaos run (started by chaos)", cmdWorker},
		{"river-worker", "[flags]", "one process of a chaos -target river run: one River client (started by chaos -target river)", cmdRiverWorker},
		{"asynq-worker", "[flags]", "one process of a chaos -target asynq run: one asynq Server (started by chaos -target asynq)", cmdAsynqWorker},
		{"goqite-worker", "[flags]", "one process of a chaos -target goqite run: one worker of goqite's queue API (started by chaos -target goqite)", cmdGoqiteWorker},
	}
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// usage is the text of `durasim -h`.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: durasim <command> [flags]\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\nrun 'durasim <command> -h' for the flags of a command.\n")
	b.WriteString("exit status: 0 no invariant violated, 1 one was, 2 bad usage or input.")
	return b.String()
}

// usageLine is the head of `durasim <name> -h`.
func usageLine(name string) string {
	c, ok := lookup(name)
	if !ok {
		return "usage: durasim " + name + " [flags]\n"
	}
	line := "usage: durasim " + c.name
	if c.args != "" {
		line += " " + c.args
	}
	return line + "\n\n" + c.summary + "\n"
}

// exitError carries an exit status; usage errors are status 2.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// runErr is the exit for an error a run returned: a panic, or a setting
// past its edge that Validate took, is a failure found (status 1, with
// its seed and the command that reproduces it); anything else is a
// configuration the run refused (a usage error, status 2).
func runErr(err error) error {
	if _, ok := errors.AsType[*sim.PanicError](err); ok {
		return &exitError{code: 1, err: err}
	}
	if _, ok := errors.AsType[*sim.EdgeError](err); ok {
		return &exitError{code: 1, err: err}
	}
	return usageErr("%v", err)
}

// runErrAt is runErr for a run whose failures rp reproduces: a panic or
// an edge error names the command that replays it from where the user is
// (or says why there is none), not one from the checkout's root.
func runErrAt(err error, rp *sim.Reproducer) error {
	if pe, ok := errors.AsType[*sim.PanicError](err); ok {
		pe.Replay, _ = rp.Line("replay", fmt.Sprintf("seed-%d", pe.Seed), pe.Config, pe.Seed)
	}
	if ee, ok := errors.AsType[*sim.EdgeError](err); ok {
		ee.Reproduce, _ = rp.Line("run", fmt.Sprintf("seed-%d", ee.Seed), ee.Config, ee.Seed)
	}
	return runErr(err)
}

// errViolation means the command ran and found a violation (status 1).
var errViolation = errors.New("invariant violated")

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage())
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) == 2 { // durasim help run: durasim run -h
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprintln(stdout, usage())
		return 0
	}
	cmd, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "durasim: unknown command %q (want one of %s; durasim -h lists them)\n", args[0], commandNames())
		return 2
	}
	return status(cmd.run(args[1:], stdout, stderr), stderr)
}

// status maps a command's error to the exit status, printing it in one
// line.
func status(err error, stderr io.Writer) int {
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errViolation):
		return 1
	case errors.As(err, &ee):
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(stderr, "durasim: %s\n", oneLine(ee.err.Error()))
		}
		return ee.code
	default:
		fmt.Fprintf(stderr, "durasim: %s\n", oneLine(err.Error()))
		return 2
	}
}

// oneLine joins a multi-line error (errors.Join) with "; ", each line
// once: a driver that reports every attempt of one connection (pgx:
// sslmode=prefer tries TLS, then plain text) says a failure they share
// once.
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}
