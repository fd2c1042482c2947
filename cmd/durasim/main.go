package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const usage = `usage: durasim <command> [flags]

commands:
  run        run one seed or a range of seeds and check every invariant
  replay     print the trace of one seed, ending with its hash
  shrink     shrink a failing seed to a minimal counterexample
  scenarios  list the course scenarios
  report     write the scenario reports (Markdown + SVG charts, pt-BR and en)
  mutants    catch every naive variant: seeds to first catch, shrunk counterexample
  bench      events/s of durasim against a bare event loop, synctest and clock.Mock
  chaos      real crashes: worker processes on PostgreSQL SIGKILLed at named points, then checked
  worker     one process of a chaos run (started by chaos)

run 'durasim <command> -h' for the flags of a command.`

// exitError carries an exit status; usage errors are status 2.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// errViolation means the command ran and found a violation (status 1).
var errViolation = errors.New("invariant violated")

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"run": cmdRun, "replay": cmdReplay, "shrink": cmdShrink, "scenarios": cmdScenarios, "report": cmdReport,
		"bench": cmdBench, "mutants": cmdMutants, "chaos": cmdChaos, "worker": cmdWorker,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		if args[0] == "-h" || args[0] == "help" || args[0] == "--help" {
			fmt.Fprintln(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "durasim: unknown command %q (want run, replay, shrink or scenarios)\n", args[0])
		return 2
	}
	err := cmd(args[1:], stdout, stderr)
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errViolation):
		return 1
	case errors.As(err, &ee):
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(stderr, "durasim: %v\n", ee.err)
		}
		return ee.code
	default:
		fmt.Fprintf(stderr, "durasim: %v\n", err)
		return 2
	}
}
