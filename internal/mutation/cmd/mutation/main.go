package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"

	"github.com/durasim/durasim/internal/mutation"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type flags struct {
	pkg, killer, filter, skip, timeout, equivalent, out string
	list, keep, schemata                                bool
	jobs                                                int
	target                                              float64
}

func run(args []string, stdout, stderr io.Writer) int {
	f, err := parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return 2
	}
	if f.list {
		err = list(f, stdout)
	} else {
		err = measure(f, stdout, stderr)
	}
	var usage *usageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return 1
	}
	return 0
}

type usageError struct{ error }

func parse(args []string) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.pkg, "pkg", "./model", "the package to mutate")
	fs.StringVar(&f.killer, "killer", "./internal/mutation/cmd/killer -seeds 1:2000 -catalogue 1:1000", "a main package and its arguments: exit 0 lets a mutant survive, anything else kills it")
	fs.StringVar(&f.filter, "run", "", "only the mutants whose \"file:line:col id\" matches this regexp")
	fs.StringVar(&f.skip, "skip", "", "leave out the mutants whose \"file:line:col id\" matches this regexp")
	fs.BoolVar(&f.list, "list", false, "only enumerate the mutants")
	fs.IntVar(&f.jobs, "j", runtime.NumCPU(), "mutants built and run at once")
	fs.StringVar(&f.timeout, "timeout", "10x", "per mutant: a multiple of the unmutated killer's time (at least 10s), or a duration")
	fs.StringVar(&f.equivalent, "equivalent", "", "file of survivors argued equivalent (default internal/mutation/equivalent/<package>.txt, if present)")
	fs.StringVar(&f.out, "out", "tmp/mutation", "directory for the reports and the scratch files (in _work, which the go command skips)")
	fs.Float64Var(&f.target, "target", 90, "score target, percent")
	fs.BoolVar(&f.keep, "keep", false, "keep the scratch directory (and its build cache)")
	fs.BoolVar(&f.schemata, "schemata", true, "run the mutants that allow it from one build of the killer (false: build the killer for every mutant)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.jobs < 1 {
		return nil, fmt.Errorf("invalid -j %d: want at least 1", f.jobs)
	}
	if f.target < 0 || f.target > 100 {
		return nil, fmt.Errorf("invalid -target %g: want a percentage between 0 and 100", f.target)
	}
	if len(strings.Fields(f.killer)) == 0 {
		return nil, errors.New("-killer is empty: want a main package and its arguments")
	}
	return f, nil
}

func (f *flags) regexp() (*regexp.Regexp, error) { return compileFlag("-run", f.filter) }

// compileFlag compiles a regexp flag's value; empty is none.
func compileFlag(name, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &usageError{fmt.Errorf("invalid %s: %v", name, err)}
	}
	return re, nil
}

// list prints the selected mutants and a count per operator.
func list(f *flags, stdout io.Writer) error {
	re, err := f.regexp()
	if err != nil {
		return err
	}
	skip, err := compileFlag("-skip", f.skip)
	if err != nil {
		return err
	}
	pkg, err := mutation.LoadPackage(f.pkg)
	if err != nil {
		return &usageError{err}
	}
	ms, err := mutation.EnumerateTyped(pkg, nil)
	if err != nil {
		return err
	}
	var byOp [mutation.OperatorCount]int
	n := 0
	for _, m := range ms {
		where := filepath.Join(pkg.Rel(), m.Where())
		if id := m.Where() + " " + m.ID(); re != nil && !re.MatchString(id) || skip != nil && skip.MatchString(id) {
			continue
		}
		fmt.Fprintf(stdout, "%s  %s\n", where, m.ID())
		byOp[m.Op]++
		n++
	}
	fmt.Fprintf(stdout, "%d mutants:", n)
	for op, c := range byOp {
		fmt.Fprintf(stdout, " %s=%d", mutation.Operator(op), c)
	}
	fmt.Fprintln(stdout)
	return nil
}

func measure(f *flags, stdout, stderr io.Writer) error {
	o, err := f.options(stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.Context = ctx
	if !f.keep {
		defer os.RemoveAll(o.Dir)
	}
	r, err := mutation.Run(o)
	if errors.Is(err, mutation.ErrNoneSelected) {
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	var text strings.Builder
	r.WriteText(&text, f.target)
	base := filepath.Join(f.out, path.Base(r.ImportPath))
	if err := os.WriteFile(base+".txt", []byte(text.String()), 0o644); err != nil {
		return err
	}
	if err := r.WriteJSON(base + ".json"); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\nreport      %s.txt and %s.json\n", text.String(), base, base)
	return nil
}

func (f *flags) options(stderr io.Writer) (mutation.Options, error) {
	o := mutation.Options{Pkg: f.pkg, Killer: strings.Fields(f.killer), Jobs: f.jobs, Dir: filepath.Join(f.out, "_work"), PrivateCache: !f.schemata, Schemata: f.schemata, Progress: stderr}
	var err error
	if o.Filter, err = f.regexp(); err != nil {
		return o, err
	}
	if o.Skip, err = compileFlag("-skip", f.skip); err != nil {
		return o, err
	}
	for _, p := range []string{f.pkg, o.Killer[0]} {
		if _, err := mutation.ImportPath(p); err != nil {
			return o, &usageError{err}
		}
	}
	if o.Timeout, err = mutation.ParseTimeout(f.timeout); err != nil {
		return o, &usageError{err}
	}
	if o.Equivalents, err = f.readEquivalents(); err != nil {
		return o, &usageError{err}
	}
	return o, nil
}

// readEquivalents reads -equivalent, or the package's default file when
// it exists.
func (f *flags) readEquivalents() ([]mutation.Argued, error) {
	name := f.equivalent
	if name == "" {
		name = filepath.Join("internal", "mutation", "equivalent", path.Base(strings.TrimRight(f.pkg, "/"))+".txt")
		if _, err := os.Stat(name); err != nil {
			return nil, nil
		}
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	eqs, err := mutation.ParseEquivalents(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return eqs, nil
}
