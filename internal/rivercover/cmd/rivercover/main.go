// Command rivercover prints the statement coverage of River's packages by
// each River mode of durasim (package rivercover):
//
//	rivercover [-seeds N] [-main ./cmd/durasim] [-dir DIR]
//
// The chaos mode runs when DURASIM_PG_URL is set. It exits 0 whatever the
// figures (a measurement); 2 for bad usage or a build that fails.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/durasim/durasim/internal/rivercover"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rivercover", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 500, "seeds of the deterministic sweep (a quarter as many of the outbox design)")
	mainPkg := fs.String("main", "./cmd/durasim", "the CLI to build and run")
	dir := fs.String("dir", "", "scratch directory (default: a temporary one, removed)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rivercover: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if err := measure(*seeds, *mainPkg, *dir, stdout); err != nil {
		fmt.Fprintf(stderr, "rivercover: %v\n", err)
		return 2
	}
	return 0
}

func measure(seeds int, mainPkg, dir string, stdout io.Writer) error {
	modes, err := rivercover.Modes(seeds, os.Getenv("DURASIM_PG_URL"))
	if err != nil {
		return err
	}
	pkgs, err := rivercover.Packages(mainPkg)
	if err != nil {
		return err
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "rivercover-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	res, err := rivercover.Measure(mainPkg, pkgs, modes, dir)
	if err != nil {
		return err
	}
	rivercover.Write(stdout, pkgs, res)
	return nil
}
