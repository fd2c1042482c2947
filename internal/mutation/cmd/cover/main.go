package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/durasim/durasim/internal/mutation"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cover", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pkgs := fs.String("pkg", "./model", "packages to measure, comma-separated")
	mainPkg := fs.String("main", "./cmd/durasim", "main package to build and run")
	target := fs.Float64("target", 95, "statement coverage target, percent")
	dir := fs.String("dir", "", "scratch directory (default: a temporary one, removed)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "cover: %v\n", err)
		return 2
	}
	progArgs := fs.Args()
	if len(progArgs) == 0 {
		progArgs = []string{"run", "-seeds", "1:2000", ";", "mutants", "-seeds", "1:1000"}
	}
	if err := measure(*pkgs, *mainPkg, progArgs, *target, *dir, stdout); err != nil {
		fmt.Fprintf(stderr, "cover: %v\n", err)
		return 2
	}
	return 0
}

func measure(pkgList, mainPkg string, args []string, target float64, dir string, stdout io.Writer) error {
	if target < 0 || target > 100 {
		return fmt.Errorf("invalid -target %g: want a percentage between 0 and 100", target)
	}
	var pkgs []*mutation.Package
	var patterns []string
	for _, p := range strings.Split(pkgList, ",") {
		pkg, err := mutation.LoadPackage(strings.TrimSpace(p))
		if err != nil {
			return err
		}
		pkgs, patterns = append(pkgs, pkg), append(patterns, strings.TrimSpace(p))
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "durasim-cover-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	res, err := mutation.Cover(mutation.CoverOptions{Main: mainPkg, Args: args, Pkgs: patterns, Dir: dir})
	if err != nil {
		return err
	}
	what := "`" + strings.Join(append([]string{mainPkg}, args...), " ") + "`"
	mutation.WriteCoverage(stdout, pkgs, res, what, target)
	return nil
}
